// The viewer's denoised view (app/viewer/denoised_view.h) driven by its progressive renderer on the CPU
// backend, without a window: a moved camera's image takes in the last view's (temporal reuse), more
// samples of one view blend again with the same history, and another content, or reuse turned off,
// takes nothing from the views before; with the U-Net chosen, a view at rest gets it.
#include <gtest/gtest.h>

#include <string>

#include "app/viewer/denoised_view.h"
#include "app/viewer/progressive.h"
#include "render/denoise/denoiser_choice.h"
#include "render/scene/scene.h"
#include "tests/denoise/unet_test_nets.h"
#include "tests/test_util.h"

using namespace pkrt;
using namespace pkrt::viewer;

namespace {

struct Rig {
    std::unique_ptr<Backend> backend = make_cpu_backend();
    Scene scene;
    ProgressiveRenderer progressive;
    DenoisedView view;

    Rig() {
        scene = load_scene(std::string(PKRT_SCENES_DIR) + "/cornell.json");
        prepare_scene(scene);
        progressive.set_backend(backend.get());
        progressive.set_scene(&scene);
        progressive.set_resolution(48, 48);
        progressive.set_features(true);
    }
    // One frame of `spp` samples, then the denoised view refreshed from it; the share of its pixels that
    // took something from the views before.
    double frame(uint32_t spp) {
        while (!progressive.can_submit()) progressive.complete();
        progressive.submit(spp);
        while (progressive.in_flight()) progressive.complete();
        EXPECT_TRUE(view.refresh(*backend, progressive.generation(), progressive.image_camera(), progressive.content()))
            << view.why();
        return view.reused();
    }
    // The camera slides sideways by `dx` (mm: about two pixels at the back wall for 30; back and forth,
    // so that the box keeps filling the image).
    void turn(float dx) {
        CameraSpec c = progressive.image_camera();
        c.eye.x += dx;
        c.look_at.x += dx;
        progressive.set_camera(c);
    }
};

}  // namespace

TEST(DenoisedView, AMovedCameraReusesTheViewBefore) {
    Rig r;
    EXPECT_EQ(r.frame(2), 0.0) << "the first view has no history";
    EXPECT_EQ(r.frame(2), 0.0) << "more samples of the first view: still none";
    r.turn(30.0f);
    double moved = r.frame(1);
    EXPECT_GT(moved, 0.8) << "most of the box is seen from both views";
    EXPECT_LT(moved, 1.0);
    EXPECT_EQ(r.view.width(), 48);
    // More samples of the same view blend again with the same history (not with themselves).
    EXPECT_NEAR(r.frame(1), moved, 0.05);
}

TEST(DenoisedView, AnotherContentOrReuseTurnedOffTakesNothing) {
    Rig r;
    r.frame(2);
    r.progressive.set_max_depth(r.progressive.max_depth() + 1);
    r.turn(30.0f);
    EXPECT_EQ(r.frame(1), 0.0) << "another max depth: the history is another image's";
    r.turn(-30.0f);
    EXPECT_GT(r.frame(1), 0.8) << "then reused again";
    r.view.set_temporal(false);
    r.turn(30.0f);
    EXPECT_EQ(r.frame(1), 0.0);
    r.view.set_temporal(true);
    r.turn(-30.0f);
    EXPECT_EQ(r.frame(1), 0.0) << "turned on again: the history starts with this view";
    r.turn(30.0f);
    EXPECT_GT(r.frame(1), 0.8);
}

// After a camera move the viewer shows a preview first (one sample a 4x4 block, each block filled with
// it): the preview's image blends with the view before too, and so does the full image that follows.
TEST(DenoisedView, APreviewBlendsWithTheViewBefore) {
    Rig r;
    r.progressive.set_preview(4);
    r.frame(2);
    r.turn(30.0f);
    EXPECT_GT(r.frame(1), 0.6) << "the preview";
    EXPECT_GT(r.frame(1), 0.8) << "the full image of the same view";
}

// With the learned denoiser chosen, a view's first image is the a-trous filter's and the U-Net denoises
// the view once it rests; a moved camera goes back to the filter. The U-Net here is the identity
// network (its output is its input colour), so its image is the accumulation's means.
TEST(DenoisedView, AViewAtRestGetsTheUnet) {
    pkrt_test::TempDir dir;
    write_unet_weights(dir.file("identity.pkrtunet"), pkrt_test::identity_net());
    Rig r;
    r.view.set_denoiser(choose_denoiser(DenoiserKind::kUnet, dir.file("identity.pkrtunet")));
    r.frame(2);
    EXPECT_EQ(r.view.device().find("U-Net"), std::string::npos) << "a view's first image: " << r.view.device();
    r.frame(2);
    EXPECT_NE(r.view.device().find("U-Net"), std::string::npos) << "at rest: " << r.view.device();
    const Image means = r.backend->resolve();
    const float* rgba = r.view.image().finished_rgba();
    ASSERT_NE(rgba, nullptr);
    for (size_t i = 0; i < means.pixels.size(); ++i)
        for (int k = 0; k < 3; ++k)
            ASSERT_NEAR(rgba[4 * i + k], means.pixels[i][k], 1e-4 * (1 + means.pixels[i][k])) << i;
    r.turn(30.0f);
    r.frame(1);
    EXPECT_EQ(r.view.device().find("U-Net"), std::string::npos) << "a moved camera: " << r.view.device();
    EXPECT_GT(r.view.reused(), 0.8) << "the filter's history goes on across the rest";
}
