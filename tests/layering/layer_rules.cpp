#include "tests/layering/layer_rules.h"

#include <cctype>
#include <fstream>
#include <regex>
#include <sstream>

namespace delineate::test {
namespace fs = std::filesystem;

namespace {

// Families of includes, recognised by their spelling.
enum class Family {
  Std,         // <vector>, <cstdint>: no folder, no extension
  Qt,
  QtWidgets,
  Vtk,
  Itk,
  Dicom,       // DCMTK, GDCM
  Torch,
  Core,
  Io,
  Inference,
  InferenceTorch,
  Viewer,
  App,
  Other,       // any other library header (zlib, nlohmann, POSIX)
};

bool startsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

Family classify(const std::string& inc) {
  static const std::regex qtWidgetsClass(
      R"(^Q(Widget|MainWindow|Dialog|Application|PushButton|Label|LineEdit|ComboBox|Menu|MenuBar|ToolBar|)"
      R"(DockWidget|MessageBox|FileDialog|Slider|SpinBox|TreeView|TableView|ListView|Action|ActionGroup|Layout|)"
      R"(VBoxLayout|HBoxLayout|GridLayout|Splitter|ScrollArea|StatusBar|ProgressBar|CheckBox|RadioButton|GroupBox|)"
      R"(TabWidget|OpenGLWidget|AbstractButton|ToolButton|HeaderView|StyledItemDelegate|Style|WidgetAction)$)");
  static const std::regex qtClass(R"(^Q[A-Z][A-Za-z0-9]*(\.h)?$)");
  static const std::regex qtModule(R"(^Qt[A-Za-z]*(/.*)?$)");  // <QtCore>, <QtCore/QObject>, <Qt>, <QtGlobal>
  static const std::regex qtLower(R"(^qt[a-z]*\.h$)");
  if (startsWith(inc, "QtWidgets") || startsWith(inc, "QtOpenGLWidgets") || std::regex_search(inc, qtWidgetsClass))
    return Family::QtWidgets;
  if (std::regex_search(inc, qtModule) || std::regex_search(inc, qtClass) || std::regex_search(inc, qtLower))
    return Family::Qt;
  if (startsWith(inc, "vtk")) return Family::Vtk;  // vtkImageData.h, vtk-9.1/...
  if (startsWith(inc, "itk") || startsWith(inc, "ITK")) return Family::Itk;
  if (startsWith(inc, "dcmtk/") || startsWith(inc, "gdcm")) return Family::Dicom;
  if (startsWith(inc, "torch/") || startsWith(inc, "ATen/") || startsWith(inc, "c10/") || startsWith(inc, "caffe2/"))
    return Family::Torch;
  if (startsWith(inc, "core/")) return Family::Core;
  if (startsWith(inc, "io/")) return Family::Io;
  if (startsWith(inc, "inference/vista3d/") || startsWith(inc, "inference/training/")) return Family::InferenceTorch;
  if (startsWith(inc, "inference/")) return Family::Inference;
  if (startsWith(inc, "viewer/")) return Family::Viewer;
  if (startsWith(inc, "app/")) return Family::App;
  if (inc.find('/') == std::string::npos && inc.find('.') == std::string::npos) return Family::Std;
  return Family::Other;
}

struct Rule {
  Family family;
  const char* why;
};

struct LayerRules {
  std::vector<Rule> forbidden;
  bool onlyStdAndCore = false;  // core: an allow-list rather than a deny-list
};

// The deepest matching folder prefix wins; anything under app/ that is neither gui/ nor cli/ gets the headless rules.
LayerRules rulesFor(const std::string& folder) {
  const Rule qt{Family::Qt, "Qt is not allowed here"};
  const Rule qtw{Family::QtWidgets, "Qt Widgets is not allowed here"};
  const Rule vtk{Family::Vtk, "VTK is not allowed here"};
  const Rule itk{Family::Itk, "ITK is not allowed here"};
  const Rule dicom{Family::Dicom, "DICOM toolkits are not allowed here"};
  const Rule torch{Family::Torch, "torch headers belong only in inference/vista3d and inference/training"};
  const Rule io{Family::Io, "upward dependency on io"};
  const Rule inf{Family::Inference, "upward dependency on inference"};
  const Rule infT{Family::InferenceTorch, "engines are reached through inference/engine.h"};
  const Rule viewer{Family::Viewer, "upward dependency on viewer"};
  const Rule app{Family::App, "upward dependency on app"};
  if (folder == "core") return {{io, inf, infT, viewer, app}, true};
  // Stricter than the table (which forbids only Qt Widgets): io stays free of Qt so the CLI and the GPU build,
  // which have no Qt, can link it.
  if (folder == "io") return {{qt, qtw, vtk, torch, inf, infT, viewer, app}};
  if (folder == "inference/vista3d" || folder == "inference/training")
    return {{qt, qtw, vtk, itk, dicom, io, viewer, app}};
  if (folder == "inference/classic") return {{qt, qtw, vtk, dicom, torch, io, viewer, app}};
  if (folder == "inference") return {{qt, qtw, vtk, itk, dicom, torch, io, viewer, app}};
  if (folder == "viewer") return {{torch, dicom, itk, io, inf, infT, app}};
  if (folder == "app/gui") return {{torch, infT}};
  // delineate-train: headless, and it drives training through inference/training's torch-free headers.
  if (folder == "app/train") return {{qt, qtw, vtk, itk, dicom, torch, viewer}};
  // app/cli and any other app/ folder: headless, and third-party libraries only through io and inference.
  return {{qt, qtw, vtk, itk, dicom, torch, infT, viewer}};
}

// A folder in rooms: each room may include the rooms its rule lists and no others; a room without a rule may use
// only `base` until one is written here.
struct Rooms {
  std::string prefix;  // "io/", "app/gui/"
  std::vector<std::pair<std::string, std::vector<std::string>>> uses;
};

// io/ is one library in rooms (io/README.md), so that e.g. a volume format never reaches the share store.
const Rooms& ioRooms() {
  static const Rooms rooms{"io/",
                           {
                               {"base", {}},
                               {"volume", {"base"}},
                               {"dicom", {"base"}},
                               {"labels", {"base"}},
                               {"report", {"base"}},
                               {"trust", {"base"}},
                               {"share", {"base", "volume", "trust"}},
                               {"autosave", {"base", "volume"}},
                               {"studies", {"base", "volume", "dicom", "share", "models"}},
                               {"pacs", {"base", "dicom", "share", "studies"}},
                               {"cluster", {"base"}},
                               {"models", {"base"}},
                           }};
  return rooms;
}

// app/gui is in rooms too (app/gui/README.md), ordered from the bottom. The window (shell/) composes the rest and
// nothing includes it: docks observe the StudyDocument (study/) and reach the window only through base/workbench.h,
// so a new dock adds a file and no method on the window.
const Rooms& guiRooms() {
  static const Rooms rooms{"app/gui/",
                           {
                               {"base", {}},
                               {"study", {"base"}},
                               {"views", {"base", "study"}},
                               {"editing", {"base", "study", "views"}},
                               {"ai", {"base", "study", "views", "editing"}},
                               {"training", {"base"}},
                               {"reports", {"base", "study", "views"}},
                               {"pacs", {"base", "study"}},
                               {"shell", {"base", "study", "views", "editing", "ai", "training", "reports", "pacs"}},
                           }};
  return rooms;
}

// "io/share/x.h" -> "share"; "io/x.h" (no room) or a path outside the folder -> "".
std::string roomOf(const Rooms& rooms, const std::string& path) {
  if (path.rfind(rooms.prefix, 0) != 0) return {};
  const std::size_t slash = path.find('/', rooms.prefix.size());
  return slash == std::string::npos ? std::string() : path.substr(rooms.prefix.size(), slash - rooms.prefix.size());
}

// Why an include from room `from` of header `inc` (in the same folder) is refused, or empty when it is allowed.
std::string roomViolation(const Rooms& rooms, const std::string& from, const std::string& inc) {
  const std::string folder = rooms.prefix.substr(0, rooms.prefix.size() - 1);
  const std::string to = roomOf(rooms, inc);
  if (to.empty()) return folder + " headers live in rooms (" + folder + "/<room>/, see " + folder + "/README.md)";
  if (to == from) return {};
  std::vector<std::string> allowed = {"base"};
  for (const auto& [room, uses] : rooms.uses)
    if (room == from) allowed = uses;
  for (const std::string& a : allowed)
    if (a == to) return {};
  if (&rooms == &guiRooms() && to == "shell")
    return "only the window's own files include app/gui/shell: docks use the StudyDocument and app/gui/base/workbench.h";
  return folder + "/" + from + " may not use " + folder + "/" + to + " (" + folder +
         "/README.md lists what each room may use)";
}

// A room's *_internal.h headers are its own: other rooms and layers use its public headers.
bool isForeignInternal(const std::string& rel, const std::string& inc) {
  const std::string name = fs::path(inc).filename().string();
  const std::string suffix = "_internal.h";
  if (name.size() < suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) return false;
  return fs::path(inc).parent_path() != fs::path(rel).parent_path();
}

// "app/cli/x.h" -> "cli".
std::string appFolderOf(const std::string& path) {
  const std::size_t slash = path.find('/', 4);
  return path.rfind("app/", 0) != 0 || slash == std::string::npos ? std::string() : path.substr(4, slash - 4);
}

// The programs under app/ share code only through app/command_line (the headless programs' command lines): one
// program never reaches into another's folder (delineate-train into delineate-cli's, say), and app/command_line
// uses no program's code. The window's rooms are judged by roomViolation.
std::string appFolderViolation(const std::string& rel, const std::string& inc) {
  const std::string from = appFolderOf(rel), to = appFolderOf(inc);
  if (from == to) return {};
  if (to == "command_line" && from != "gui") return {};
  if (to.empty()) return "app/ headers live in a program's folder";
  return "app/" + from + " may not use app/" + to + ": programs share code through app/command_line";
}

std::string folderOf(const std::string& rel) {
  const char* folders[] = {"inference/vista3d", "inference/training", "inference/classic", "app/gui", "app/cli", "app/train",
                           "core", "io", "inference", "viewer", "app"};
  for (const char* f : folders)
    if (rel.rfind(std::string(f) + "/", 0) == 0) return f;
  return {};
}

bool isSource(const fs::path& p) {
  static const char* kExtensions[] = {".h",   ".hh",  ".hpp", ".hxx", ".inl", ".ipp", ".tpp",
                                      ".txx", ".c",   ".cc",  ".cpp", ".cxx"};
  const std::string ext = p.extension().string();
  for (const char* e : kExtensions)
    if (ext == e) return true;
  return false;
}

// The file with comments and raw string literals blanked out (newlines kept, so line numbers stay right). Ordinary
// string and character literals are skipped so "http://" does not start a comment.
std::string withoutComments(const std::string& text) {
  std::string out = text;
  enum { Code, Line, Block, String, Char } state = Code;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const char c = text[i];
    const char next = i + 1 < text.size() ? text[i + 1] : '\0';
    switch (state) {
      case Code:
        if (c == 'R' && next == '"' && (i == 0 || !(std::isalnum(static_cast<unsigned char>(text[i - 1])) ||
                                                   text[i - 1] == '_'))) {
          // R"delim( ... )delim": may span lines and hold anything, includes and comment markers alike.
          const std::size_t open = text.find('(', i + 2);
          if (open == std::string::npos) break;
          const std::string close = ")" + text.substr(i + 2, open - i - 2) + "\"";
          std::size_t end = text.find(close, open + 1);
          end = end == std::string::npos ? text.size() : end + close.size();
          for (std::size_t k = i; k < end; ++k)
            if (out[k] != '\n') out[k] = ' ';
          i = end - 1;
        } else if (c == '/' && next == '/') {
          state = Line;
          out[i] = ' ';
        } else if (c == '/' && next == '*') {
          state = Block;
          out[i] = out[i + 1] = ' ';
          ++i;
        } else if (c == '"') {
          state = String;
        } else if (c == '\'') {
          state = Char;
        }
        break;
      case Line:
        if (c == '\n') state = Code;
        else out[i] = ' ';
        break;
      case Block:
        if (c == '*' && next == '/') {
          out[i] = out[i + 1] = ' ';
          ++i;
          state = Code;
        } else if (c != '\n') {
          out[i] = ' ';
        }
        break;
      case String:
      case Char:
        if (c == '\\') ++i;
        else if ((state == String && c == '"') || (state == Char && c == '\'') || c == '\n') state = Code;
        break;
    }
  }
  return out;
}

}  // namespace

LayeringReport checkLayering(const fs::path& root) {
  LayeringReport report;
  static const std::regex includeLine(R"(^\s*#\s*include(_next)?\s*([<"])([^>"]+)[>"])");
  static const std::regex anyInclude(R"(^\s*#\s*include(_next)?\b)");
  const fs::path canonicalRoot = fs::weakly_canonical(root);
  for (const char* top : {"core", "io", "inference", "viewer", "app"}) {
    const fs::path dir = root / top;
    if (!fs::exists(dir)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
      if (!entry.is_regular_file() || !isSource(entry.path())) continue;
      ++report.filesScanned;
      const fs::path rel = fs::relative(entry.path(), root);
      const std::string relText = rel.generic_string();
      const LayerRules rules = rulesFor(folderOf(relText));
      const bool inIo = relText.rfind("io/", 0) == 0;
      const std::string room = inIo ? roomOf(ioRooms(), relText) : std::string();
      if (inIo && room.empty())
        report.violations.push_back(LayerViolation{rel, 0, "", "io sources live in rooms (io/<room>/, see io/README.md)"});
      const bool inGui = relText.rfind("app/gui/", 0) == 0;
      const std::string guiRoom = inGui ? roomOf(guiRooms(), relText) : std::string();
      if (inGui && guiRoom.empty())
        report.violations.push_back(
            LayerViolation{rel, 0, "", "app/gui sources live in rooms (app/gui/<room>/, see app/gui/README.md)"});
      std::ifstream in(entry.path(), std::ios::binary);
      std::stringstream buffer;
      buffer << in.rdbuf();
      std::istringstream lines(withoutComments(buffer.str()));
      std::string line;
      int number = 0;
      while (std::getline(lines, line)) {
        ++number;
        std::smatch m;
        if (!std::regex_search(line, m, includeLine)) {
          // #include MACRO cannot be judged by reading; in a layer folder it is refused rather than trusted.
          if (std::regex_search(line, anyInclude)) {
            ++report.includesChecked;
            report.violations.push_back(LayerViolation{rel, number, line, "computed #include cannot be checked"});
          }
          continue;
        }
        ++report.includesChecked;
        if (m[1].matched) {
          report.violations.push_back(LayerViolation{rel, number, m[3], "#include_next bypasses the include order"});
          continue;
        }
        // The compiler resolves "core/../io/x.h" through the source root: judge the normalised spelling.
        std::string inc = fs::path(std::string(m[3])).lexically_normal().generic_string();
        if (m[2] == "\"") {
          // A quoted include found next to the including file is judged by where it really is ("../io/x.h").
          const fs::path local = fs::weakly_canonical(entry.path().parent_path() / std::string(m[3]));
          if (fs::exists(local)) {
            const fs::path inRoot = local.lexically_relative(canonicalRoot);
            if (inRoot.empty() || *inRoot.begin() == "..") {
              report.violations.push_back(LayerViolation{rel, number, m[3], "include reaches outside the source tree"});
              continue;
            }
            inc = inRoot.generic_string();
          }
        }
        if (inc.rfind("../", 0) == 0) {
          report.violations.push_back(LayerViolation{rel, number, inc, "include reaches outside the source tree"});
          continue;
        }
        const Family f = classify(inc);
        if ((f == Family::Io || f == Family::Core) && isForeignInternal(relText, inc)) {
          report.violations.push_back(LayerViolation{rel, number, inc, "another folder's internal header"});
          continue;
        }
        if (f == Family::App && relText.rfind("app/", 0) == 0) {
          std::string why;
          if (inc.rfind("app/gui/", 0) == 0)
            why = inGui ? roomViolation(guiRooms(), guiRoom, inc)
                        : std::string("app/gui is the window's: other programs may not include it");
          else
            why = appFolderViolation(relText, inc);
          if (!why.empty()) {
            report.violations.push_back(LayerViolation{rel, number, inc, why});
            continue;
          }
        }
        // The network: DCMTK's DIMSE and TLS live in io/pacs alone (io/pacs/README.md); the HTTP client in io/pacs
        // (DICOMweb) and io/models (model downloads).
        const bool dimse = inc.rfind("dcmtk/dcmnet/", 0) == 0 || inc.rfind("dcmtk/dcmtls/", 0) == 0;
        const bool http = inc.rfind("curl/", 0) == 0;
        if ((dimse && !(inIo && room == "pacs")) || (http && !(inIo && (room == "pacs" || room == "models")))) {
          report.violations.push_back(LayerViolation{
              rel, number, inc, "DICOM networking belongs in io/pacs, the HTTP client in io/pacs and io/models"});
          continue;
        }
        if (inIo && !room.empty()) {
          if (f == Family::Io) {
            if (const std::string why = roomViolation(ioRooms(), room, inc); !why.empty()) {
              report.violations.push_back(LayerViolation{rel, number, inc, why});
              continue;
            }
          } else if (f == Family::Dicom && room != "dicom" && room != "pacs") {
            report.violations.push_back(LayerViolation{rel, number, inc, "DICOM toolkits belong in io/dicom and io/pacs"});
            continue;
          } else if (f == Family::Itk && room != "volume") {
            // ITK reads the rare volume formats (io/volume/itk_formats.cpp); no other room needs it.
            report.violations.push_back(LayerViolation{rel, number, inc, "ITK belongs in io/volume"});
            continue;
          }
        }
        if (rules.onlyStdAndCore) {
          if (f != Family::Std && f != Family::Core)
            report.violations.push_back(
                LayerViolation{rel, number, inc, "core uses only the standard library and core/ headers"});
          continue;
        }
        for (const Rule& r : rules.forbidden) {
          // Qt Widgets is a part of Qt: a folder that forbids Qt forbids it too.
          if (r.family == f || (r.family == Family::Qt && f == Family::QtWidgets)) {
            report.violations.push_back(LayerViolation{rel, number, inc, r.why});
            break;
          }
        }
      }
    }
  }
  return report;
}

std::string describe(const LayerViolation& v) {
  return v.file.generic_string() + ":" + std::to_string(v.line) + ": #include <" + v.include + ">: " + v.rule;
}

}  // namespace delineate::test
