#pragma once
// The README's CLI section against the programs' help pages: which commands and options the README names, which the
// programs have, and where the two disagree. Pure text functions, so the comparison itself is tested on planted
// README texts and help pages (tests/cli/test_cli_help.cpp) as well as on the real ones.

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace delineate::test {

struct ReadmeCommand {
  std::string program;  // "delineate-cli"
  std::string path;     // "share save"
  std::set<std::string> options;
  int line = 0;  // 1-based, in the README
};

inline std::vector<std::string> splitWhitespace(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

inline std::set<std::string> longOptionsIn(const std::string& text) {
  static const std::regex option("--[a-z][a-z0-9-]*");
  std::set<std::string> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), option); it != std::sregex_iterator(); ++it)
    out.insert(it->str());
  return out;
}

// The command lines in the fenced blocks of the README's "## CLI" section: lines that start with one of `programs`,
// an indented line continuing the one before, "  # ..." comments dropped. A word such as "list|lease" in the
// command path stands for both commands.
inline std::vector<ReadmeCommand> readmeCliCommands(const std::string& readme,
                                                    const std::vector<std::string>& programs) {
  static const std::regex commandWord("[a-z][a-z0-9-]*(\\|[a-z][a-z0-9-]*)*");
  std::vector<ReadmeCommand> out;
  std::istringstream in(readme);
  bool inSection = false, inFence = false;
  std::vector<std::size_t> current;  // the entries the last command line made (several for "a|b")
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (line.rfind("## ", 0) == 0) {
      inSection = line == "## CLI";
      inFence = false;
      continue;
    }
    if (!inSection) continue;
    if (line.rfind("```", 0) == 0) {
      inFence = !inFence;
      current.clear();
      continue;
    }
    if (!inFence) continue;
    if (const auto hash = line.find(" #"); hash != std::string::npos) line.erase(hash);
    const std::vector<std::string> words = splitWhitespace(line);
    if (words.empty()) continue;
    if (line[0] == ' ' || line[0] == '\t') {  // continues the command above
      for (std::size_t i : current) {
        const auto more = longOptionsIn(line);
        out[i].options.insert(more.begin(), more.end());
      }
      continue;
    }
    current.clear();
    bool known = false;
    for (const std::string& p : programs) known = known || words[0] == p;
    if (!known) continue;
    std::vector<std::string> paths{""};
    std::size_t w = 1;
    for (; w < words.size() && std::regex_match(words[w], commandWord); ++w) {
      std::vector<std::string> longer;
      std::string alternatives = words[w];
      for (std::size_t bar; !alternatives.empty();) {
        bar = alternatives.find('|');
        const std::string name = alternatives.substr(0, bar);
        for (const std::string& p : paths) longer.push_back(p.empty() ? name : p + " " + name);
        alternatives = bar == std::string::npos ? std::string() : alternatives.substr(bar + 1);
      }
      paths = longer;
    }
    std::string rest;
    for (; w < words.size(); ++w) rest += words[w] + " ";
    for (const std::string& p : paths) {
      current.push_back(out.size());
      out.push_back({words[0], p, longOptionsIn(rest), number});
    }
  }
  return out;
}

// The lines of a help page's section ("options:", "commands:"): from its heading to the next blank line.
inline std::vector<std::string> helpSection(const std::string& help, const std::string& heading) {
  std::istringstream in(help);
  std::vector<std::string> lines;
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line == heading) {
      inside = true;
    } else if (inside) {
      if (line.empty()) break;
      lines.push_back(line);
    }
  }
  return lines;
}

// The long options a help page declares (its "options:" entries: "  --labels FILE  ..." or "  -h,--help  ...").
inline std::set<std::string> helpOptions(const std::string& help) {
  std::set<std::string> out;
  for (const std::string& line : helpSection(help, "options:")) {
    if (line.rfind("  -", 0) != 0) continue;  // a description's continuation
    const std::string names = splitWhitespace(line).front();
    const auto found = longOptionsIn(names);
    out.insert(found.begin(), found.end());
  }
  return out;
}

// The commands a help page lists (first word of each "commands:" entry), each once, in order.
inline std::vector<std::string> helpCommands(const std::string& help) {
  std::vector<std::string> out;
  for (const std::string& line : helpSection(help, "commands:")) {
    if (line.size() < 3 || line.rfind("  ", 0) != 0 || line[2] == ' ') continue;
    const std::string name = splitWhitespace(line).front();
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  return out;
}

// A help page: `program path --help`'s stdout, or nullopt where that is no command (it did not exit 0).
using HelpPages = std::function<std::optional<std::string>(const std::string& program, const std::string& path)>;

// Every disagreement between the README's command lines and the programs' help, one sentence each:
// a command the README names that has no help page, an option it names that the page lacks, an option the page has
// that the README's line for it lacks, and a command a program lists that the README does not name.
// --help and --version go without saying.
inline std::vector<std::string> readmeHelpDisagreements(const std::vector<ReadmeCommand>& readme,
                                                        const std::vector<std::string>& programs,
                                                        const HelpPages& help) {
  std::vector<std::string> problems;
  std::map<std::pair<std::string, std::string>, std::set<std::string>> named;  // (program, path) -> options
  std::map<std::pair<std::string, std::string>, int> lineOf;
  for (const ReadmeCommand& c : readme) {
    named[{c.program, c.path}].insert(c.options.begin(), c.options.end());
    lineOf.emplace(std::make_pair(c.program, c.path), c.line);
  }
  for (const auto& [key, options] : named) {
    const std::string where = "README line " + std::to_string(lineOf[key]) + ": '" + key.first + " " + key.second + "'";
    const std::optional<std::string> page = help(key.first, key.second);
    // A page for another command (a parent's, say) does not count as this command's.
    if (!page || page->rfind("usage: " + key.first + " " + key.second + " ", 0) != 0) {
      problems.push_back(where + " is not a command of the program (its --help fails)");
      continue;
    }
    std::set<std::string> declared = helpOptions(*page);
    for (const std::string& o : options)
      if (!declared.count(o)) problems.push_back(where + " names " + o + ", which its --help does not have");
    declared.erase("--help");
    declared.erase("--version");
    for (const std::string& o : declared)
      if (!options.count(o)) problems.push_back(where + " lacks " + o + ", which its --help has");
  }
  // The commands each program lists, down to the leaves.
  std::function<void(const std::string&, const std::string&)> walk = [&](const std::string& program,
                                                                          const std::string& path) {
    const std::optional<std::string> page = help(program, path);
    if (!page) {
      problems.push_back("'" + program + " " + path + " --help' fails, yet its parent lists it");
      return;
    }
    const std::vector<std::string> commands = helpCommands(*page);
    if (commands.empty()) {
      if (!path.empty() && !named.count({program, path}))
        problems.push_back("'" + program + " " + path + "' is a command of the program but not in the README");
      return;
    }
    for (const std::string& c : commands) walk(program, path.empty() ? c : path + " " + c);
  };
  for (const std::string& program : programs) walk(program, "");
  return problems;
}

}  // namespace delineate::test
