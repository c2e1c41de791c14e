// One way to read every flag's value, in every program (pkrt render, pkrt bench, pkrt-viewer): applied
// to each option of a CLI11 app once all are declared, so a flag added later is covered without a word.
// A value is never empty (an empty value is not "not given": `--hdr ""` wrote nothing and exited 0),
// never padded with blanks, and a number is read in full and in decimal: CLI11 alone takes "0x10" as 16,
// "010" as 8 and " 16" as 16, and hexadecimal floats.
#pragma once

#include <cctype>
#include <string>

#include <CLI/CLI.hpp>

#include "render/quote.h"
#include "render/strict_number.h"

namespace pkrt {

// What is wrong with `value` of an option whose CLI11 type is `type` ("INT", "UINT", "FLOAT", "TEXT", ...);
// empty when nothing is.
inline std::string strict_value_problem(const std::string& value, const std::string& type) {
    if (value.empty()) return "an empty value (leave the flag out for its default)";
    const std::string blanks = " \t\n\r\v\f";
    if (blanks.find(value.front()) != std::string::npos || blanks.find(value.back()) != std::string::npos)
        return "'" + quote_input(value) + "' has blanks around it";
    // Leading zeros: CLI11 reads "010" as octal.
    auto leading_zero = [&](size_t i) { return value.size() > i + 1 && value[i] == '0' && value[i + 1] != '.'; };
    if (type == "UINT") {
        uint64_t n = 0;
        if (!parse_strict_unsigned(value, UINT64_MAX, &n) || leading_zero(0))
            return "'" + quote_input(value) + "' is not a whole number (decimal digits only)";
    } else if (type == "INT") {
        int64_t n = 0;
        if (!parse_strict_integer(value, INT64_MIN, INT64_MAX, &n) || leading_zero(value[0] == '-' ? 1 : 0))
            return "'" + quote_input(value) + "' is not a whole number (decimal digits, '-' before them)";
    } else if (type == "FLOAT") {
        // "nan" and "inf" are numbers, not finite ones: each float flag's own range check refuses them in
        // its words ("--aperture: must be ..."), as it does a finite value out of range.
        std::string word = value.substr(value[0] == '-' || value[0] == '+' ? 1 : 0);
        for (char& c : word) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        double d = 0.0;
        if (!parse_strict_decimal(value, &d) && word != "nan" && word != "inf" && word != "infinity")
            return "'" + quote_input(value) + "' is not a decimal number";
    }
    return "";
}

// Adds the strict check to every option of `app` that takes a value (subcommands' included). Call once,
// after the last option is added.
inline void make_values_strict(CLI::App& app) {
    for (CLI::Option* opt : app.get_options()) {
        if (opt->get_type_size() == 0) continue;  // a flag: no value
        std::string type = opt->get_type_name();
        type = type.substr(0, type.find(':'));  // validators' descriptions follow the type
        opt->check(
            CLI::Validator([type](std::string& value) { return strict_value_problem(value, type); }, std::string()));
    }
    for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) make_values_strict(*sub);
}

// CLI11 splits a list flag's value (bench --res 16x16,,8x8) and drops its empty items before any check
// sees them, so a list is checked here, on the command line itself, before it is parsed: the options of
// `app` (or of the subcommand argv[1] names) that take lists. Returns the problem, empty when none.
inline std::string list_value_problem(CLI::App& app, int argc, char** argv) {
    CLI::App* scope = &app;
    if (argc > 1)
        for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
            if (sub->get_name() == argv[1]) scope = sub;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i], value;
        size_t eq = arg.find('=');
        std::string name = arg.rfind("--", 0) == 0 && eq != std::string::npos ? arg.substr(0, eq) : arg;
        for (CLI::Option* opt : scope->get_options()) {
            const char d = opt->get_delimiter();
            if (d == '\0' || name.empty() || name[0] != '-' || !opt->check_name(name)) continue;
            if (name.size() < arg.size()) value = arg.substr(eq + 1);
            else if (i + 1 < argc) value = argv[i + 1];
            else continue;  // CLI11 says the value is missing
            const std::string both(2, d);
            if (value.empty() || value.front() == d || value.back() == d || value.find(both) != std::string::npos)
                return name + " " + quote_input(value) + ": a list with an empty item";
        }
    }
    return "";
}

}  // namespace pkrt
