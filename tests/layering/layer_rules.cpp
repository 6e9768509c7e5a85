#include "tests/layering/layer_rules.h"

#include <fstream>
#include <regex>

namespace delineate::test {
namespace fs = std::filesystem;

namespace {

// Families of includes, recognised by their spelling.
enum class Family { Qt, QtWidgets, Vtk, Itk, Dcmtk, Torch, Core, Io, Inference, InferenceTorch, Viewer, App, Other };

Family classify(const std::string& inc) {
  static const std::regex qtWidgets(R"(^(QtWidgets/|QtOpenGLWidgets/|Q(Widget|MainWindow|Dialog|Application|PushButton|Label|LineEdit|ComboBox|Menu|MenuBar|ToolBar|DockWidget|MessageBox|FileDialog|Slider|SpinBox|TreeView|TableView|ListView|Action|ActionGroup|Layout|VBoxLayout|HBoxLayout|GridLayout|Splitter|ScrollArea|StatusBar|ProgressBar|CheckBox|RadioButton|GroupBox|TabWidget|OpenGLWidget)\b))");
  static const std::regex qt(R"(^(Qt[A-Za-z]*/|Q[A-Z][A-Za-z]*(\.h)?$|qt[a-z]*\.h$))");
  if (std::regex_search(inc, qtWidgets)) return Family::QtWidgets;
  if (std::regex_search(inc, qt)) return Family::Qt;
  if (inc.rfind("vtk", 0) == 0) return Family::Vtk;
  if (inc.rfind("itk", 0) == 0) return Family::Itk;
  if (inc.rfind("dcmtk/", 0) == 0) return Family::Dcmtk;
  if (inc.rfind("torch/", 0) == 0 || inc.rfind("ATen/", 0) == 0 || inc.rfind("c10/", 0) == 0) return Family::Torch;
  if (inc.rfind("core/", 0) == 0) return Family::Core;
  if (inc.rfind("io/", 0) == 0) return Family::Io;
  if (inc.rfind("inference/vista3d/", 0) == 0 || inc.rfind("inference/training/", 0) == 0)
    return Family::InferenceTorch;
  if (inc.rfind("inference/", 0) == 0) return Family::Inference;
  if (inc.rfind("viewer/", 0) == 0) return Family::Viewer;
  if (inc.rfind("app/", 0) == 0) return Family::App;
  return Family::Other;
}

struct Rule {
  Family family;
  const char* why;
};

// Forbidden families per folder; the deepest matching folder prefix wins.
std::vector<Rule> forbiddenFor(const std::string& folder) {
  const Rule qt{Family::Qt, "Qt is not allowed here"};
  const Rule qtw{Family::QtWidgets, "Qt Widgets is not allowed here"};
  const Rule vtk{Family::Vtk, "VTK is not allowed here"};
  const Rule itk{Family::Itk, "ITK is not allowed here"};
  const Rule dcmtk{Family::Dcmtk, "DCMTK is not allowed here"};
  const Rule torch{Family::Torch, "torch headers belong only in inference/vista3d and inference/training"};
  const Rule io{Family::Io, "upward dependency on io"};
  const Rule inf{Family::Inference, "upward dependency on inference"};
  const Rule infT{Family::InferenceTorch, "engines are reached through inference/engine.h"};
  const Rule viewer{Family::Viewer, "upward dependency on viewer"};
  const Rule app{Family::App, "upward dependency on app"};
  if (folder == "core") return {qt, qtw, vtk, itk, dcmtk, torch, io, inf, infT, viewer, app};
  // Stricter than the table (which forbids only Qt Widgets): io stays free of Qt so the CLI and the GPU build,
  // which have no Qt, can link it.
  if (folder == "io") return {qt, qtw, vtk, torch, inf, infT, viewer, app};
  if (folder == "inference/vista3d" || folder == "inference/training")
    return {qt, qtw, vtk, itk, dcmtk, io, viewer, app};
  if (folder == "inference/classic") return {qt, qtw, vtk, dcmtk, torch, io, viewer, app};
  if (folder == "inference") return {qt, qtw, vtk, itk, dcmtk, torch, io, viewer, app};
  if (folder == "viewer") return {torch, dcmtk, itk, io, inf, infT, app};
  if (folder == "app/gui") return {torch, infT};
  if (folder == "app/cli") return {qt, qtw, vtk, torch, viewer};
  return {};
}

std::string folderOf(const fs::path& relative) {
  const std::vector<std::string> folders{"inference/vista3d", "inference/training", "inference/classic", "app/gui",
                                         "app/cli", "core", "io", "inference", "viewer"};
  const std::string rel = relative.generic_string();
  for (const std::string& f : folders)
    if (rel.rfind(f + "/", 0) == 0) return f;
  return {};
}

bool isSource(const fs::path& p) {
  const std::string ext = p.extension().string();
  return ext == ".h" || ext == ".hpp" || ext == ".cpp" || ext == ".cc" || ext == ".cxx";
}

}  // namespace

std::vector<LayerViolation> checkLayering(const fs::path& root) {
  std::vector<LayerViolation> out;
  static const std::regex includeLine(R"(^\s*#\s*include\s*[<"]([^>"]+)[>"])");
  for (const char* top : {"core", "io", "inference", "viewer", "app"}) {
    const fs::path dir = root / top;
    if (!fs::exists(dir)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
      if (!entry.is_regular_file() || !isSource(entry.path())) continue;
      const fs::path rel = fs::relative(entry.path(), root);
      const std::vector<Rule> rules = forbiddenFor(folderOf(rel));
      std::ifstream in(entry.path());
      std::string line;
      int number = 0;
      while (std::getline(in, line)) {
        ++number;
        std::smatch m;
        if (!std::regex_search(line, m, includeLine)) continue;
        const std::string inc = m[1];
        const Family f = classify(inc);
        for (const Rule& r : rules) {
          // Qt Widgets is a part of Qt: a folder that forbids Qt forbids it too.
          const bool hit = r.family == f || (r.family == Family::Qt && f == Family::QtWidgets);
          if (hit) {
            out.push_back(LayerViolation{rel, number, inc, r.why});
            break;
          }
        }
      }
    }
  }
  return out;
}

std::string describe(const LayerViolation& v) {
  return v.file.generic_string() + ":" + std::to_string(v.line) + ": #include <" + v.include + ">: " + v.rule;
}

}  // namespace delineate::test
