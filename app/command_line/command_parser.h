#pragma once
// What delineate-cli and delineate-vista3d share about their command lines: CLI11 with our help layout and our exit
// codes (0 help, 2 usage error) instead of CLI11's own printing and exit().

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace delineate::app::command_line {

// Help pages laid out for reading and for tests to check against the README: "usage: PROGRAM COMMAND SYNOPSIS",
// the description, then "arguments:", "options:" and "commands:" sections, one entry per line at two spaces' indent.
class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const override;
};

// The command's arguments as a user types them, e.g. "IMAGE OUTPUT [--engine ID] [--class N]...". A command with
// subcommands reads "<command> ...".
std::string synopsis(const CLI::App& command);

// Makes `app` the root of a program: our help layout and --help. Call it before adding subcommands, which inherit
// both when they are created.
void configureProgram(CLI::App& app);

// A value-taking option's placeholder in help and synopsis ("FILE", "N"); flags have none. Returns `option`.
CLI::Option* valueName(CLI::Option* option, const std::string& name);

// Given any number of times, one value each: "--class 1 --class 2"; "--class 1 2" leaves 2 an unexpected argument,
// as it was before CLI11. Returns `option`.
CLI::Option* repeatable(CLI::Option* option);

// A check from a predicate; when `ok` says no, the error reads "--option: <problem>, not '<value>'".
CLI::Validator checkedBy(std::function<bool(const std::string&)> ok, std::string problem);

// Parses `args` (without the program name). Returns nullopt when a command was selected and should run now;
// otherwise the exit code, after printing: help (stdout) 0; version (stdout) 0; usage errors (stderr, one line
// "error: <problem> (see 'PROGRAM COMMAND --help')") 2.
std::optional<int> parseCommandLine(CLI::App& app, const std::vector<std::string>& args);

// The deepest subcommand the last parse selected (the program itself when none), and its path below the program
// ("share save"; empty for the program).
const CLI::App& selectedCommand(const CLI::App& app);
std::string commandPath(const CLI::App& command);

}  // namespace delineate::app::command_line
