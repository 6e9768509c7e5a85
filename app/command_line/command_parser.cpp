#include "app/command_line/command_parser.h"

#include <cctype>
#include <cstdio>

namespace delineate::app::command_line {
namespace {

constexpr std::size_t kWidth = 100;        // help lines wrap here
constexpr std::size_t kNameColumn = 26;    // descriptions of arguments and options start here
constexpr const char* kDescIndent = "      ";  // a command's description under its synopsis

std::vector<const CLI::App*> allSubcommands(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App*) { return true; });
}

bool isHelpOrVersion(const CLI::App& app, const CLI::Option* o) {
  return o == app.get_help_ptr() || o->check_lname("version");
}

// Flags take no value: CLI11 declares them expecting none.
bool isFlag(const CLI::Option* o) { return o->get_expected_max() == 0; }

bool isRepeatable(const CLI::Option* o) {
  return o->get_multi_option_policy() == CLI::MultiOptionPolicy::TakeAll || o->get_expected_max() > 1;
}

std::string placeholder(const CLI::Option* o) {
  return o->get_option_text().empty() ? std::string("VALUE") : o->get_option_text();
}

// The synopsis as items that stay on one line when it wraps ("[--labels FILE]" is one item).
std::vector<std::string> synopsisItems(const CLI::App& command) {
  // A group needs one of its commands; a command that also runs alone (batch, with status/cancel below it) shows its
  // own arguments, and its commands are listed after its options.
  if (!allSubcommands(command).empty() && command.get_require_subcommand_min() > 0) return {"<command>", "..."};
  std::vector<std::string> items;
  for (const CLI::Option* o : command.get_options()) {
    if (!o->get_positional()) continue;
    std::string item = o->get_name(true, false);
    if (o->get_expected_max() > 1) item += "...";
    items.push_back(o->get_required() ? item : "[" + item + "]");
  }
  for (const CLI::Option* o : command.get_options()) {
    if (o->get_positional() || isHelpOrVersion(command, o)) continue;
    std::string item = o->get_name(false, true);
    if (!isFlag(o)) item += " " + placeholder(o);
    if (!o->get_required()) item = "[" + item + "]";
    if (isRepeatable(o)) item += "...";
    items.push_back(item);
  }
  return items;
}

// Words of `text` from column `indent` up to kWidth; the first line continues what is already written up to `used`.
std::string wrap(const std::vector<std::string>& words, std::size_t indent, std::size_t used) {
  std::string out;
  std::size_t column = used;
  bool first = true;
  for (const std::string& w : words) {
    if (!first && column + 1 + w.size() > kWidth && column > indent) {
      out += "\n" + std::string(indent, ' ');
      column = indent;
    } else if (!first) {
      out += ' ';
      ++column;
    }
    out += w;
    column += w.size();
    first = false;
  }
  return out;
}

std::vector<std::string> splitWords(const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  for (char c : text) {
    if (c == ' ' || c == '\n') {
      if (!word.empty()) words.push_back(word);
      word.clear();
    } else {
      word += c;
    }
  }
  if (!word.empty()) words.push_back(word);
  return words;
}

// Paragraphs (separated by newlines in the declaration) wrapped at `indent`.
std::string wrapText(const std::string& text, std::size_t indent) {
  std::string out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = text.find('\n', start);
    const std::string line = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    out += std::string(indent, ' ') + wrap(splitWords(line), indent, indent) + "\n";
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

// "  NAME                    description", the description wrapped at kNameColumn.
std::string entry(const std::string& name, const std::string& description) {
  std::string out = "  " + name;
  if (out.size() + 2 > kNameColumn) {
    out += "\n" + std::string(kNameColumn, ' ');
  } else {
    out += std::string(kNameColumn - out.size(), ' ');
  }
  return out + wrap(splitWords(description), kNameColumn, kNameColumn) + "\n";
}

// One command in a "commands:" list: its path below `from` and synopsis, the description underneath.
void listCommand(const CLI::App& command, const std::string& relativePath, std::string& out) {
  const std::string head = "  " + relativePath + " ";
  out += head + wrap(synopsisItems(command), head.size() + 4, head.size()) + "\n";
  if (!command.get_description().empty()) out += wrapText(command.get_description(), std::string(kDescIndent).size());
}

std::string lowerFirst(std::string text) {
  // "The following argument..." reads better after "error: "; "IMAGE is required" keeps its capitals.
  if (text.size() > 1 && std::isupper(static_cast<unsigned char>(text[0])) &&
      std::islower(static_cast<unsigned char>(text[1])))
    text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  return text;
}

std::string joinNames(const std::vector<const CLI::App*>& commands) {
  std::string out;
  for (const CLI::App* c : commands) out += (out.empty() ? "" : ", ") + c->get_name();
  return out;
}

// The problem in our words where CLI11's are vague about which argument it was.
std::string describe(const CLI::ParseError& e, const CLI::App& command) {
  const std::vector<std::string> rest = command.remaining();
  const std::string first = rest.empty() ? std::string() : rest.front();
  const bool group = !allSubcommands(command).empty();
  const std::string path = commandPath(command);
  if (group && command.get_subcommands().empty()) {
    if (!first.empty() && first[0] == '-') return "unknown option " + first;
    if (!first.empty()) return "unknown " + (path.empty() ? std::string() : path + " ") + "command '" + first + "'";
    return (path.empty() ? command.get_name() : path) + " needs a command: " + joinNames(allSubcommands(command));
  }
  if (dynamic_cast<const CLI::ExtrasError*>(&e) && !first.empty())
    return first[0] == '-' ? "unknown option " + first : "unexpected argument '" + first + "'";
  return lowerFirst(e.what());
}

// One line on stderr, naming the problem and the help page of the command it happened in; exit code 2.
int reportUsageError(const CLI::App& app, const CLI::ParseError& e) {
  const CLI::App& command = selectedCommand(app);
  const std::string path = commandPath(command);
  std::fprintf(stderr, "error: %s (see '%s%s --help')\n", describe(e, command).c_str(), app.get_name().c_str(),
               path.empty() ? "" : (" " + path).c_str());
  return 2;
}

}  // namespace

std::string HelpFormatter::make_help(const CLI::App* app, std::string name, CLI::AppFormatMode) const {
  const std::string usage = "usage: " + name + " ";
  std::string out = usage + wrap(synopsisItems(*app), usage.size() + 2, usage.size()) + "\n";
  if (!app->get_description().empty()) out += "\n" + wrapText(app->get_description(), 0);

  std::string arguments, options;
  for (const CLI::Option* o : app->get_options()) {
    if (o->get_positional()) {
      arguments += entry(o->get_name(true, false), o->get_description());
    } else {
      std::string label = o->get_name(false, true);
      if (!isFlag(o)) label += " " + placeholder(o);
      std::string description = o->get_description();
      if (o->get_required()) description += " (required)";
      if (isRepeatable(o)) description += " (repeatable)";
      options += entry(label, description);
    }
  }
  if (!arguments.empty()) out += "\narguments:\n" + arguments;
  if (!options.empty()) out += "\noptions:\n" + options;

  const std::vector<const CLI::App*> subcommands = allSubcommands(*app);
  if (!subcommands.empty()) {
    // The program's own page lists nested commands too, so one page shows everything there is.
    out += "\ncommands:\n";
    for (const CLI::App* sub : subcommands) {
      const std::vector<const CLI::App*> nested = allSubcommands(*sub);
      if (app->get_parent() == nullptr && !nested.empty()) {
        // A command that also runs alone (batch) is listed itself, before its subcommands.
        if (sub->get_require_subcommand_min() == 0) listCommand(*sub, sub->get_name(), out);
        for (const CLI::App* n : nested) listCommand(*n, sub->get_name() + " " + n->get_name(), out);
      } else {
        listCommand(*sub, sub->get_name(), out);
      }
    }
    out += "\n'" + name + " <command> --help' shows a command's arguments and options.\n";
  }
  if (!app->get_footer().empty()) out += "\n" + wrapText(app->get_footer(), 0);
  return out;
}

std::string synopsis(const CLI::App& command) {
  std::string out;
  for (const std::string& item : synopsisItems(command)) out += (out.empty() ? "" : " ") + item;
  return out;
}

void configureProgram(CLI::App& app) {
  app.formatter(std::make_shared<HelpFormatter>());
  app.set_help_flag("-h,--help", "print this help and exit");
}

CLI::Option* valueName(CLI::Option* option, const std::string& name) {
  // CLI11 names the value by its type name in errors ("--labels: 1 required FILE missing").
  option->option_text(name);
  option->type_name(name);
  return option;
}

CLI::Option* repeatable(CLI::Option* option) {
  return option->allow_extra_args(false)->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

CLI::Validator checkedBy(std::function<bool(const std::string&)> ok, std::string problem) {
  return CLI::Validator(
      [ok = std::move(ok), problem = std::move(problem)](std::string& value) {
        return ok(value) ? std::string() : problem + ", not '" + value + "'";
      },
      "");
}

const CLI::App& selectedCommand(const CLI::App& app) {
  const CLI::App* command = &app;
  for (std::vector<CLI::App*> selected = command->get_subcommands(); !selected.empty();
       selected = command->get_subcommands())
    command = selected.front();
  return *command;
}

std::string commandPath(const CLI::App& command) {
  std::string path;
  for (const CLI::App* c = &command; c->get_parent() != nullptr; c = c->get_parent())
    path = c->get_name() + (path.empty() ? "" : " " + path);
  return path;
}

std::optional<int> parseCommandLine(CLI::App& app, const std::vector<std::string>& args) {
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last first
  try {
    app.parse(reversed);
    return std::nullopt;
  } catch (const CLI::CallForHelp& e) {
    // CLI11 answers "share frob --help" with share's page; a command that does not exist is a usage error.
    const CLI::App& command = selectedCommand(app);
    if (allSubcommands(command).empty() || command.remaining().empty()) {
      std::fputs(app.help().c_str(), stdout);
      return 0;
    }
    return reportUsageError(app, e);
  } catch (const CLI::CallForAllHelp&) {
    std::fputs(app.help("", CLI::AppFormatMode::All).c_str(), stdout);
    return 0;
  } catch (const CLI::CallForVersion& e) {
    std::printf("%s\n", e.what());
    return 0;
  } catch (const CLI::ParseError& e) {
    return reportUsageError(app, e);
  }
}

}  // namespace delineate::app::command_line
