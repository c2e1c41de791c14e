#include "render/scheduler_options.h"

#include <charconv>
#include <functional>

#include "render/error.h"

namespace pkrt {

namespace {

struct Setting {
    const char* key;
    const char* values;
    const char* meaning;
    std::function<void(SchedulerOptions&, const std::string&)> apply;  // throws std::invalid_argument
};

long long parse_integer(const std::string& v, long long lo, long long hi) {
    long long x = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
    if (ec != std::errc() || end != v.data() + v.size()) throw std::invalid_argument("not an integer");
    if (x < lo || x > hi) throw std::invalid_argument("out of range");
    return x;
}

template <class E> E parse_choice(const std::string& v, std::initializer_list<std::pair<const char*, E>> names) {
    for (const auto& [name, value] : names)
        if (v == name) return value;
    throw std::invalid_argument("not one of the choices");
}

bool parse_switch(const std::string& v) { return parse_choice<bool>(v, {{"on", true}, {"off", false}}); }

const std::vector<Setting>& settings() {
    static const std::vector<Setting> table = {
        {"shadow_rays", "auto|queued|inline",
         "persistent, resident: shadow rays through their queue or traced where cast (auto: timed per configuration)",
         [](SchedulerOptions& o, const std::string& v) {
             o.shadow_rays = parse_choice<ShadowRays>(
                 v, {{"auto", ShadowRays::kAuto}, {"queued", ShadowRays::kQueued}, {"inline", ShadowRays::kInline}});
         }},
        {"stragglers", "auto|kept|sorted",
         "persistent: a warp's last live paths kept in their lanes, or pooled so only empty warps take new paths (auto: timed)",
         [](SchedulerOptions& o, const std::string& v) {
             o.stragglers = parse_choice<Stragglers>(
                 v, {{"auto", Stragglers::kAuto}, {"kept", Stragglers::kKept}, {"sorted", Stragglers::kSorted}});
         }},
        {"blocks_per_sm", "auto|4|6|8|10",
         "persistent: the build for that many resident blocks per SM (128/80/64/48 registers)",
         [](SchedulerOptions& o, const std::string& v) {
             o.blocks_per_sm = v == "auto" ? 0 : parse_choice<int>(v, {{"4", 4}, {"6", 6}, {"8", 8}, {"10", 10}});
         }},
        {"grid_blocks", "0-1048576", "persistent: blocks in the grid (0: every block that can be co-resident)",
         [](SchedulerOptions& o, const std::string& v) {
             o.grid_blocks = static_cast<int>(parse_integer(v, 0, 1 << 20));
         }},
        {"fetch_threshold", "1-32", "persistent: refill a warp when fewer lanes than this hold a path (default 24)",
         [](SchedulerOptions& o, const std::string& v) {
             o.fetch_threshold = static_cast<int>(parse_integer(v, 1, 32));
         }},
        {"queue_capacity", "0 or a power of two 32-2^30", "path and shadow queue slots (0: twice the grid's lanes)",
         [](SchedulerOptions& o, const std::string& v) {
             long long c = parse_integer(v, 0, 1 << 30);
             if (c != 0 && (c < 32 || (c & (c - 1)))) throw std::invalid_argument("not a power of two of at least 32");
             o.queue_capacity = static_cast<uint32_t>(c);
         }},
        {"backoff_max_shift", "0-12", "persistent: idle warps sleep at most 64 << n ns (default 4: 1 us)",
         [](SchedulerOptions& o, const std::string& v) {
             o.backoff_max_shift = static_cast<int>(parse_integer(v, 0, 12));
         }},
        {"timeline", "on|off", "sample the queue-depth timeline (default on)",
         [](SchedulerOptions& o, const std::string& v) { o.timeline = parse_switch(v); }},
        {"timeline_points", "256-4096", "aim a frame's timeline at about this many points (default 1024)",
         [](SchedulerOptions& o, const std::string& v) {
             o.timeline_points = static_cast<int>(parse_integer(v, 256, 4096));
         }},
        {"poll_stop", "on|off", "persistent: poll the host's stop flag, for cancellation (default on)",
         [](SchedulerOptions& o, const std::string& v) { o.poll_stop = parse_switch(v); }},
        {"wave_capacity", "32-2^28", "relaunch, graph, megakernel: paths per wave (default 2^21)",
         [](SchedulerOptions& o, const std::string& v) {
             o.wave_capacity = static_cast<uint32_t>(parse_integer(v, 32, 1 << 28));
         }},
        {"ray_order", "shaded|binned",
         "relaunch, graph: bounce rays traced in the order shaded, or sorted by direction octant and origin cell",
         [](SchedulerOptions& o, const std::string& v) {
             o.ray_order = parse_choice<RayOrder>(v, {{"shaded", RayOrder::kShaded}, {"binned", RayOrder::kBinned}});
         }},
    };
    return table;
}

}  // namespace

void apply_setting(SchedulerOptions& options, const std::string& key_value) {
    size_t eq = key_value.find('=');
    std::string what = "--set " + key_value;
    if (eq == std::string::npos) throw Error(what + ": expected KEY=VALUE");
    std::string key = key_value.substr(0, eq), value = key_value.substr(eq + 1);
    std::string keys;
    for (const Setting& s : settings()) {
        keys += std::string(keys.empty() ? "" : ", ") + s.key;
        if (key != s.key) continue;
        try {
            s.apply(options, value);
        } catch (const std::invalid_argument&) {
            throw Error(what + ": " + key + " must be " + s.values);
        }
        return;
    }
    throw Error(what + ": unknown key '" + key + "' (keys: " + keys + ")");
}

SchedulerOptions parse_settings(const std::vector<std::string>& key_values) {
    SchedulerOptions o;
    for (const auto& kv : key_values) apply_setting(o, kv);
    return o;
}

std::string settings_help() {
    std::string out;
    for (const Setting& s : settings())
        out += std::string("  ") + s.key + "=" + s.values + "\n      " + s.meaning + "\n";
    return out;
}

}  // namespace pkrt
