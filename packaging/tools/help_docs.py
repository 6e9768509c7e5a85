#!/usr/bin/env python3
"""Man pages and bash completion for Delineate's programs, generated from the programs' own --help so they never
drift from what the programs accept (packaging/README.md).

    help_docs.py --program PATH --name NAME --version V --date YYYY-MM-DD --summary TEXT
                 [--see-also NAME]... [--man OUT.1] [--completion OUT]

Reads `PROG --help` and, where it lists commands, `PROG COMMAND --help` for each. Two help layouts are understood:
app/command_line's (CLI11: "usage:", "arguments:", "options:", "commands:") and Qt's QCommandLineParser ("Usage:",
"Options:", "Arguments:"), which the window uses. A help text this script cannot read is an error naming the program
and the line, never a silent page without it.
"""

import argparse
import re
import subprocess
import sys

HEADERS = {"usage": "usage", "arguments": "arguments", "options": "options", "commands": "commands"}


class HelpError(Exception):
    pass


def run_help(program, words):
    cmd = [program] + words + ["--help"]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env={"LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"})
    except (OSError, subprocess.TimeoutExpired) as e:
        raise HelpError(f"{' '.join(cmd)}: {e}")
    if out.returncode != 0:
        raise HelpError(f"{' '.join(cmd)}: exit {out.returncode}: {out.stderr.strip()[:300]}")
    return out.stdout


def indent_of(line):
    return len(line) - len(line.lstrip(" "))


def parse_help(text, where):
    """{usage: [lines], description: [paragraph lines], arguments/options: [(term, text)], commands: [path]}"""
    lines = text.rstrip("\n").split("\n")
    result = {"usage": [], "description": [], "arguments": [], "options": [], "commands": []}
    i = 0
    # The synopsis: "usage: ..." (or Qt's "Usage: ...") and its indented continuation lines.
    if not lines or not re.match(r"(?i)^usage: ", lines[0]):
        raise HelpError(f"{where}: the help does not start with a usage line: {lines[0] if lines else '(empty)'}")
    result["usage"].append(lines[0].split(":", 1)[1].strip())
    i = 1
    while i < len(lines) and lines[i].startswith(" ") and lines[i].strip():
        result["usage"].append(lines[i].strip())
        i += 1
    section = None
    entry = None
    for line in lines[i:]:
        if not line.strip():
            entry = None
            continue
        header = re.match(r"^([A-Za-z]+):$", line)
        if header and header.group(1).lower() in HEADERS:
            section = header.group(1).lower()
            entry = None
            continue
        if section is None:
            result["description"].append(line.strip())
            continue
        if section == "commands":
            if indent_of(line) == 2:
                words = []
                for w in line.split():
                    if not re.match(r"^[a-z][a-z0-9-]*$", w):
                        break
                    words.append(w)
                if not words:
                    raise HelpError(f"{where}: a command line without a command name: {line.strip()}")
                result["commands"].append(" ".join(words))
            continue
        if indent_of(line) == 2:
            m = re.match(r"^  (\S(?:.*?\S)?)(?:\s{2,}(.*))?$", line)
            term, desc = m.group(1), (m.group(2) or "")
            entry = [term, desc]
            result[section].append(entry)
        elif entry is not None:
            entry[1] = (entry[1] + " " + line.strip()).strip()
        else:
            raise HelpError(f"{where}: a continuation line with nothing to continue: {line.strip()}")
    return result


def roff(text):
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return text


def roff_line(text):
    text = roff(text)
    if text.startswith((".", "'")):
        text = "\\&" + text
    return text


def options_of(term):
    """'-h,--help' -> ['-h', '--help']; '--series KEY|NUMBER' -> ['--series']; Qt's '-h, --help'."""
    names = []
    for part in re.split(r",\s*", term):
        first = part.split()[0] if part.split() else ""
        if first.startswith("-"):
            names.append(first)
    return names


def metavar_of(term):
    m = re.match(r"^\S+(?:,\s*\S+)*\s+(.+)$", term)
    if not m:
        return ""
    return m.group(1).strip().strip("<>").rstrip(".").strip()


def value_kind(metavar):
    """How a value is completed: 'words:a b c', 'file', 'dir' or '' (free text)."""
    if not metavar:
        return None
    mv = metavar.split()[0].strip("[]<>")
    if "|" in mv and all(re.match(r"^[a-z0-9_:.-]+$", p) for p in mv.split("|")):
        return "words:" + " ".join(p for p in mv.split("|") if not p.endswith(":n"))
    low = mv.lower()
    if low in ("folder", "dir", "root", "jobdir", "directory") or low.endswith("folder") or low.endswith("dir"):
        return "dir"
    if low in ("file", "png", "csv", "json", "image", "labels", "output", "out", "config", "pdf", "list") or "." in mv \
            or low.endswith("file"):
        return "file"
    return ""


def gather(program, name):
    top = parse_help(run_help(program, []), name)
    commands = {}
    for path in top["commands"]:
        commands[path] = parse_help(run_help(program, path.split()), f"{name} {path}")
    # A command that lists commands of its own (a group) was listed by its subcommands already.
    return top, commands


def write_man(out, name, version, date, summary, top, commands, see_also):
    w = []
    w.append(f'.\\" Generated by packaging/tools/help_docs.py from `{name} --help`; do not edit.')
    w.append(f'.TH "{name.upper()}" "1" "{date}" "Delineate {version}" "Delineate Manual"')
    w.append(".SH NAME")
    w.append(f"{roff(name)} \\- {roff(summary)}")
    w.append(".SH SYNOPSIS")
    w.append(".nf")
    for line in top["usage"]:
        w.append(roff_line(line))
    w.append(".fi")
    if top["description"]:
        w.append(".SH DESCRIPTION")
        w.append(roff_line(" ".join(top["description"])))

    def term_list(items):
        for term, desc in items:
            w.append(".TP")
            w.append(f"\\fB{roff(term)}\\fR")
            w.append(roff_line(desc) if desc else "")

    for title, items in (("ARGUMENTS", top["arguments"]), ("OPTIONS", top["options"])):
        if items:
            w.append(f'.SH "{title}"')
            term_list(items)
    if commands:
        w.append(".SH COMMANDS")
        for path, page in commands.items():
            w.append(f'.SS "{roff(path)}"')
            w.append(".nf")
            w.extend(roff_line(line) for line in page["usage"])
            w.append(".fi")
            if page["description"]:
                w.append(".PP")
                w.append(roff_line(" ".join(page["description"])))
            for title, items in (("Arguments", page["arguments"]), ("Options", page["options"])):
                if items:
                    w.append(".PP")
                    w.append(f"\\fI{title}:\\fR")
                    term_list(items)
    w.append(".SH EXIT STATUS")
    w.append("0 on success, 1 when the work failed (the reason is printed on standard error), 2 for a usage error; "
             "commands that handle several inputs document 3 (partial) where they use it.")
    if see_also:
        w.append(".SH SEE ALSO")
        w.append(", ".join(f"\\fB{roff(s)}\\fR(1)" for s in see_also))
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(w) + "\n")


def write_completion(out, name, top, commands):
    fn = "_" + re.sub(r"[^A-Za-z0-9]", "_", name)
    # Keys are "@" and the command path ("@" alone: the program itself; bash refuses an empty subscript).
    groups = {}   # command path -> its subcommand words
    options = {}
    values = {}   # "@path|option" -> kind

    def add_options(path, page):
        key = "@" + path
        options[key] = []
        for term, _ in page["options"]:
            names = options_of(term)
            options[key].extend(names)
            kind = value_kind(metavar_of(term))
            if kind is not None:
                for n in names:
                    values[f"{key}|{n}"] = kind

    add_options("", top)
    for path, page in commands.items():
        words = path.split()
        for k in range(len(words)):
            parent = "@" + " ".join(words[:k])
            groups.setdefault(parent, [])
            if words[k] not in groups[parent]:
                groups[parent].append(words[k])
        add_options(path, page)

    def assoc(var, mapping):
        body = " ".join(f"[{shell_quote(k)}]={shell_quote(v)}" for k, v in mapping.items())
        return f"declare -gA {var}=({body})"

    w = [f"# bash completion for {name}: generated by packaging/tools/help_docs.py from its --help; do not edit.",
         assoc(f"{fn}_groups", {k: " ".join(v) for k, v in groups.items()}),
         assoc(f"{fn}_options", {k: " ".join(v) for k, v in options.items()}),
         assoc(f"{fn}_values", values),
         f"""{fn}() {{
  local cur="${{COMP_WORDS[COMP_CWORD]}}" prev="" path="@" i word kind
  [[ $COMP_CWORD -gt 0 ]] && prev="${{COMP_WORDS[COMP_CWORD-1]}}"
  COMPREPLY=()
  # The command path so far: words that name a (sub)command, skipping options and the values they take.
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="${{COMP_WORDS[i]}}"
    if [[ $word == -* ]]; then
      [[ -n ${{{fn}_values["$path|$word"]+set}} ]] && ((i++))
      continue
    fi
    if [[ " ${{{fn}_groups["$path"]}} " == *" $word "* ]]; then
      [[ $path == "@" ]] && path="@$word" || path="$path $word"
    fi
  done
  if [[ $prev == -* && -n ${{{fn}_values["$path|$prev"]+set}} ]]; then
    kind="${{{fn}_values["$path|$prev"]}}"
    case "$kind" in
      words:*) COMPREPLY=($(compgen -W "${{kind#words:}}" -- "$cur")) ;;
      file) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur")) ;;
      dir) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- "$cur")) ;;
    esac
    return 0
  fi
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "${{{fn}_options["$path"]}}" -- "$cur"))
  elif [[ -n ${{{fn}_groups["$path"]+set}} ]]; then
    COMPREPLY=($(compgen -W "${{{fn}_groups["$path"]}}" -- "$cur"))
  else
    compopt -o filenames 2>/dev/null
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
  return 0
}}
complete -F {fn} {name}"""]
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(w) + "\n")


def shell_quote(s):
    return "'" + s.replace("'", "'\\''") + "'"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--program", required=True)
    p.add_argument("--name", required=True)
    p.add_argument("--version", required=True)
    p.add_argument("--date", required=True)
    p.add_argument("--summary", required=True)
    p.add_argument("--see-also", action="append", default=[])
    p.add_argument("--man")
    p.add_argument("--completion")
    a = p.parse_args()
    try:
        top, commands = gather(a.program, a.name)
    except HelpError as e:
        print(f"help_docs.py: error: {e}", file=sys.stderr)
        return 1
    if a.man:
        write_man(a.man, a.name, a.version, a.date, a.summary, top, commands, a.see_also)
    if a.completion:
        write_completion(a.completion, a.name, top, commands)
    return 0


if __name__ == "__main__":
    sys.exit(main())
