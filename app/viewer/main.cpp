// pkrt-viewer: an interactive window onto the progressive renderer, with the GPU schedulers' live
// statistics and a side-by-side mode comparison. See app/viewer/viewer_app.h for the structure.
#include <cstdio>
#include <exception>
#include <new>

#include "app/viewer/options.h"
#include "render/data_dir.h"
#include "render/error.h"
#include "render/log.h"
#include "app/viewer/viewer_app.h"

int main(int argc, char** argv) {
    pkrt::viewer::ViewerOptions options;
    options.shaders = pkrt::shaders_dir();
    int code = pkrt::viewer::parse_options(argc, argv, &options);
    if (code >= 0) return code;
    try {
        pkrt::viewer::check_options(options);
        pkrt::viewer::ViewerApp app(options);
        return app.run();
    } catch (const pkrt::Error& e) {
        pkrt::log_error("%s", e.what());
    } catch (const std::bad_alloc&) {
        pkrt::log_error("out of memory");
    } catch (const std::exception& e) {
        pkrt::log_error("%s", e.what());
    }
    return 1;
}
