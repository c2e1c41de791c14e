#include "render/log.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdarg>
#include <mutex>
#include <vector>

#include "render/error.h"

namespace pkrt {

namespace {

std::atomic<int> g_level{static_cast<int>(LogLevel::kInfo)};
std::mutex g_mutex;
std::string g_program = "pkrt";

void vlog(LogLevel level, const char* format, va_list args) {
    if (!log_enabled(level)) return;
    va_list copy;
    va_copy(copy, args);
    int n = std::vsnprintf(nullptr, 0, format, copy);
    va_end(copy);
    std::vector<char> text(static_cast<size_t>(std::max(n, 0)) + 1);
    std::vsnprintf(text.data(), text.size(), format, args);
    std::lock_guard<std::mutex> lock(g_mutex);
    std::string line = g_program + ": ";
    if (level == LogLevel::kError || level == LogLevel::kWarning || level == LogLevel::kDebug)
        line += std::string(log_level_name(level)) + ": ";
    std::string said = text.data();
    if (level == LogLevel::kError || level == LogLevel::kWarning) {
        // The net under quote_input (render/quote.h), which the sources use: a message stays one line of
        // bounded length whatever input text reached it.
        for (char& c : said)
            if (c == '\n' || c == '\r') c = ' ';
        constexpr size_t kMaxLine = 1024;
        if (said.size() > kMaxLine) said = said.substr(0, kMaxLine - 3) + "...";
    }
    line += said;
    line += '\n';
    std::fputs(line.c_str(), stderr);
    std::fflush(stderr);
}

}  // namespace

void set_log_level(LogLevel level) { g_level = static_cast<int>(level); }

LogLevel log_level() { return static_cast<LogLevel>(g_level.load()); }

bool log_enabled(LogLevel level) { return level == LogLevel::kError || static_cast<int>(level) <= g_level.load(); }

void set_log_program(const std::string& name) {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_program = name;
}

const char* log_level_name(LogLevel level) {
    switch (level) {
        case LogLevel::kError: return "error";
        case LogLevel::kWarning: return "warning";
        case LogLevel::kInfo: return "info";
        case LogLevel::kDebug: return "debug";
    }
    return "info";
}

LogLevel parse_log_level(const std::string& name, const std::string& flag) {
    std::string lower = name;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    for (LogLevel l : {LogLevel::kError, LogLevel::kWarning, LogLevel::kInfo, LogLevel::kDebug})
        if (lower == log_level_name(l)) return l;
    throw Error(flag + " " + name + ": unknown level (use error, warning, info or debug)");
}

void log_message(LogLevel level, const char* format, ...) {
    va_list args;
    va_start(args, format);
    vlog(level, format, args);
    va_end(args);
}

#define PKRT_LOG_AT(name, level)         \
    void name(const char* format, ...) { \
        va_list args;                    \
        va_start(args, format);          \
        vlog(level, format, args);       \
        va_end(args);                    \
    }
PKRT_LOG_AT(log_error, LogLevel::kError)
PKRT_LOG_AT(log_warning, LogLevel::kWarning)
PKRT_LOG_AT(log_info, LogLevel::kInfo)
PKRT_LOG_AT(log_debug, LogLevel::kDebug)
#undef PKRT_LOG_AT

std::FILE* progress_stream() { return log_enabled(LogLevel::kInfo) ? stderr : nullptr; }

}  // namespace pkrt
