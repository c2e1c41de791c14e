// One path for everything pkrt tells the user on stderr: "PROGRAM: [LEVEL: ]message", filtered by the
// level chosen with -q, -v or --log-level. Errors always print. The level also decides whether progress
// bars draw (they are info). Thread-safe: a message is written whole, never interleaved with another.
#pragma once

#include <cstdio>
#include <string>

#if defined(__GNUC__)
#define PKRT_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define PKRT_PRINTF(fmt, args)
#endif

namespace pkrt {

enum class LogLevel { kError = 0, kWarning = 1, kInfo = 2, kDebug = 3 };

void set_log_level(LogLevel level);
LogLevel log_level();
bool log_enabled(LogLevel level);
// The prefix of every line: "pkrt", "pkrt bench", "pkrt-viewer".
void set_log_program(const std::string& name);
// "error", "warning", "info" or "debug" (any case); throws pkrt::Error naming `flag` otherwise.
LogLevel parse_log_level(const std::string& name, const std::string& flag = "--log-level");
const char* log_level_name(LogLevel level);

void log_message(LogLevel level, const char* format, ...) PKRT_PRINTF(2, 3);
void log_error(const char* format, ...) PKRT_PRINTF(1, 2);
void log_warning(const char* format, ...) PKRT_PRINTF(1, 2);
void log_info(const char* format, ...) PKRT_PRINTF(1, 2);
void log_debug(const char* format, ...) PKRT_PRINTF(1, 2);

// Where a Progress bar draws: stderr while info messages print, else nowhere.
std::FILE* progress_stream();

}  // namespace pkrt
