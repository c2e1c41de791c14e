#include "render/scene/asset_path.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <system_error>

#include "render/error.h"
#include "render/quote.h"
#include "render/scene/loaders.h"

namespace pkrt {

namespace fs = std::filesystem;

namespace {

std::string lower(std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// Whether there is an entry of that name: a dangling link or a symlink loop counts (read_input_file
// then says which), so only an absent name is "not found".
bool path_exists(const fs::path& p) {
    std::error_code ec;
    return fs::exists(fs::symlink_status(p, ec));
}

// The entry of `dir` whose name equals `name` ignoring ASCII case; empty when none or several
// (an ambiguous match is no match).
fs::path case_insensitive_entry(const fs::path& dir, const std::string& name) {
    std::error_code ec;
    fs::directory_iterator it(dir.empty() ? fs::path(".") : dir, ec), end;
    std::string want = lower(name);
    fs::path found;
    int matches = 0;
    // A directory of a million entries is not worth a scan per texture: give up after this many.
    for (int seen = 0; !ec && it != end && seen < 100000; it.increment(ec), ++seen) {
        if (lower(it->path().filename().string()) == want) {
            found = it->path().filename();
            ++matches;
        }
    }
    return matches == 1 ? (dir.empty() ? found : dir / found) : fs::path();
}

// `rel` under `base`, each component matched without regard to case.
fs::path case_insensitive_path(const fs::path& base, const fs::path& rel) {
    fs::path at = base;
    for (const auto& part : rel) {
        std::string s = part.string();
        if (s.empty() || s == ".") continue;
        if (s == "..") {
            at /= "..";
            continue;
        }
        fs::path exact = at.empty() ? fs::path(s) : at / s;
        if (path_exists(exact)) {
            at = exact;
            continue;
        }
        fs::path m = case_insensitive_entry(at, s);
        if (m.empty()) return {};
        at = m;
    }
    return at;
}

}  // namespace

std::string resolve_asset_path(Scene& scene, const std::string& referrer, const std::string& base_dir,
                               const std::string& name) {
    fs::path literal = base_dir.empty() || fs::path(name).is_absolute() ? fs::path(name) : fs::path(base_dir) / name;
    if (path_exists(literal)) return literal.string();
    std::string spelled = name;
    std::replace(spelled.begin(), spelled.end(), '\\', '/');
    // "C:/textures/a.png" is a Windows absolute path: nothing of it but the file name can be here.
    bool drive = spelled.size() >= 3 && std::isalpha(static_cast<unsigned char>(spelled[0])) && spelled[1] == ':' &&
                 spelled[2] == '/';
    fs::path rel(drive ? spelled.substr(3) : spelled);
    fs::path base(base_dir);
    fs::path direct = rel.is_absolute() || base.empty() ? rel : base / rel;
    if (!drive && path_exists(direct)) return direct.string();

    auto warn = [&](const fs::path& used, const char* why) {
        scene.load_stats.warnings.push_back(referrer + ": '" + quote_input(name) + "' " + why + " '" +
                                            quote_input(used.string()) + "'");
    };
    if (!drive) {
        fs::path m = rel.is_absolute() ? case_insensitive_path(rel.root_path(), rel.relative_path())
                                       : case_insensitive_path(base, rel);
        if (!m.empty()) {
            warn(m, "not found as spelled; using");
            return m.string();
        }
    }
    // The bare file name in the referrer's folder: exporters write the author's absolute paths.
    fs::path file = rel.filename();
    if (!file.empty() && rel != file) {
        fs::path here = base.empty() ? file : base / file;
        if (path_exists(here)) {
            warn(here, "not found; using the file of that name beside it,");
            return here.string();
        }
        fs::path m = case_insensitive_entry(base, file.string());
        if (!m.empty()) {
            warn(m, "not found; using the file of that name beside it,");
            return m.string();
        }
    }
    return direct.string();
}

int32_t load_asset_texture(Scene& scene, const std::string& referrer, const std::string& base_dir,
                           const std::string& name) {
    std::string trimmed = name;
    while (!trimmed.empty() && std::isspace(static_cast<unsigned char>(trimmed.back()))) trimmed.pop_back();
    std::string path = resolve_asset_path(scene, referrer, base_dir, trimmed);
    if (!path_exists(path)) {
        if (scene.limits.missing_textures == MissingTextures::kError)
            throw Error(quote_input(path) + ": texture file not found (named in " + referrer +
                        "; --missing-textures warn renders without it)");
        scene.load_stats.warnings.push_back(referrer + ": texture '" + quote_input(trimmed) + "' not found (" +
                                            quote_input(path) + "): rendering without it");
        return -1;
    }
    return load_texture(scene, path);
}

}  // namespace pkrt
