#include <catch2/catch.hpp>

#include <filesystem>

#include "tests/common/test_support.h"
#include "tests/layering/layer_rules.h"

using namespace delineate::test;
namespace fs = std::filesystem;

TEST_CASE("the source tree respects the layer rules", "[layering]") {
  const LayeringReport report = checkLayering(DELINEATE_SOURCE_DIR);
  for (const auto& v : report.violations) UNSCOPED_INFO(describe(v));
  REQUIRE(report.violations.empty());
  // The scan really covered the tree: every layer has sources with includes.
  REQUIRE(report.filesScanned >= 40);
  REQUIRE(report.includesChecked >= 200);
}

namespace {
void plant(const ScratchDir& dir, const std::string& relative, const std::string& text) {
  fs::create_directories((dir.path() / relative).parent_path());
  writeTextFile(dir.path() / relative, text);
}
}  // namespace

// Planted torch includes are spelled "<" "torch/..." (adjacent literals) so that plain text scans of the repository
// do not take them for real ones.
TEST_CASE("the checker catches each planted forbidden include", "[layering]") {
  struct Case {
    const char* file;
    const char* include;
  };
  const Case forbidden[] = {
      {"core/a.h", "#include <QString>"},
      {"core/b.cpp", "#include <vtkImageData.h>"},
      {"core/c.cpp", "#include \"itkImage.h\""},
      {"core/d.cpp", "#include \"io/volume/nifti.h\""},
      {"core/e.cpp", "  #  include <" "torch/torch.h>"},
      {"core/f.cpp", "#include <zlib.h>"},
      {"core/g.cpp", "#include <nlohmann/json.hpp>"},
      {"core/h.cpp", "#include \"../io/volume/nifti.h\""},
      {"core/i.inl", "#include <QtCore>"},
      {"core/j.tpp", "/* a comment */ #include <QtGlobal>"},
      {"io/base/a.cpp", "#include <QWidget>"},
      {"io/volume/b.cpp", "#include <" "torch/script.h>"},
      {"io/dicom/c.cpp", "#include \"inference/engine.h\""},
      {"io/share/d.cpp", "#include <Qt>"},
      {"io/labels/e.hxx", "#include <caffe2/core/common.h>"},
      {"inference/a.cpp", "#include <QtCore/QObject>"},
      {"inference/b.cpp", "#include <" "torch/torch.h>"},
      {"inference/classic/c.cpp", "#include <" "ATen/ATen.h>"},
      {"inference/vista3d/d.cpp", "#include <QObject>"},
      {"inference/e.cpp", "#include <ITK-5.2/itkImage.h>"},
      {"viewer/a.cpp", "#include <dcmtk/dcmdata/dctk.h>"},
      {"viewer/b.cpp", "#include <" "c10/core/Device.h>"},
      {"viewer/c.cpp", "#include <gdcmReader.h>"},
      {"app/gui/ai/t.cpp", "#include <" "torch/torch.h>"},
      {"app/gui/ai/u.cpp", "#include \"inference/vista3d/network.h\""},
      {"app/cli/a.cpp", "#include <QCoreApplication>"},
      {"io/dicom/n.cpp", "#include <dcmtk/dcmnet/scu.h>"},
      {"io/share/o.cpp", "#include <curl/curl.h>"},
      {"app/cli/p.cpp", "#include <curl/curl.h>"},
      {"io/studies/q.cpp", "#include <dcmtk/dcmtls/tlsscu.h>"},
      {"io/pacs/r.cpp", "#include \"io/volume/nifti.h\""},
      {"app/cli/b.cpp", "#include <vtkSmartPointer.h>"},
      {"app/cli/c.cpp", "#include <itkImage.h>"},
      {"app/cli/d.cpp", "#include <dcmtk/dcmdata/dctk.h>"},
      {"app/cli/e.cpp", "#include \"inference/vista3d/network.h\""},
      {"app/tools/a.cpp", "#include <QWidget>"},  // a new app/ folder is headless until someone says otherwise
      {"app/train/a.cpp", "#include <" "torch/torch.h>"},  // training's own headers are torch-free; torch is not
      {"app/train/b.cpp", "#include <QProcess>"},
      {"core/k.h", "#include <core/../io/volume/nifti.h>"},
      {"io/report/f.cpp", "#include \"core/../viewer/scene.h\""},
      {"io/autosave/g.cpp", "#include_next <zlib.h>"},
      {"io/share/h.cpp", "#include DELINEATE_CONFIG_HEADER"},
      {"inference/f.cpp", "#include \"../../outside.h\""},
      // io's rooms (io/README.md): each uses only the rooms its rules list.
      {"io/volume/c.cpp", "#include \"io/share/share_store.h\""},  // a volume format reaching the share store
      {"io/volume/d.cpp", "#include \"io/dicom/dicom.h\""},
      {"io/dicom/d.cpp", "#include \"io/volume/nifti.h\""},
      {"io/base/b.cpp", "#include \"io/labels/label_table_io.h\""},
      {"io/share/e.cpp", "#include \"io/dicom/dicom_seg.h\""},
      {"io/report/g.cpp", "#include \"io/share/share_reports.h\""},
      {"io/autosave/h.cpp", "#include \"io/share/share_store.h\""},
      {"io/labels/f.cpp", "#include <dcmtk/dcmdata/dctk.h>"},  // DCMTK stays in io/dicom
      {"io/dicom/e.cpp", "#include <itkImage.h>"},  // ITK stays in io/volume
      {"io/share/i.cpp", "#include <ITK-5.2/itkImageIOBase.h>"},
      {"io/newroom/a.cpp", "#include \"io/volume/nifti.h\""},  // a new room uses io/base until its rules exist
      {"io/share/f.cpp", "#include \"io/nifti.h\""},  // a header outside the rooms
      {"io/share/g.cpp", "#include \"../volume/nifti_internal.h\""},  // another room's internal header
      {"app/cli/f.cpp", "#include \"io/dicom/dicom_internal.h\""},
      // app/gui's rooms (app/gui/README.md). Docks observe the study document and reach the window through
      // app/gui/base/workbench.h: nothing outside shell/ includes the window.
      {"app/gui/editing/label_panel.cpp", "#include \"app/gui/shell/main_window.h\""},
      {"app/gui/training/training_dock.h", "#include \"app/gui/shell/main_window.h\""},
      {"app/gui/views/a.cpp", "#include \"../shell/main_window.h\""},  // judged where it really is
      {"app/gui/base/job.h", "#include \"app/gui/study/study_document.h\""},  // base/ uses no other room
      {"app/gui/study/a.cpp", "#include \"app/gui/views/view_panels.h\""},  // the document lies below the views
      {"app/gui/views/b.cpp", "#include \"app/gui/editing/edit_tools.h\""},
      {"app/gui/editing/a.cpp", "#include \"app/gui/ai/ai_panel.h\""},
      {"app/gui/training/a.cpp", "#include \"app/gui/study/study_document.h\""},
      {"app/gui/reports/a.cpp", "#include \"app/gui/editing/edit_tools.h\""},
      {"app/gui/ai/a.cpp", "#include \"app/gui/reports/study_exports.h\""},
      {"app/gui/pacs/a.cpp", "#include \"app/gui/views/view_panels.h\""},  // pacs may use base and study only
      {"app/gui/newroom/a.cpp", "#include \"app/gui/study/study_document.h\""},  // a new room uses base/ until its rules exist
      {"app/gui/study/b.cpp", "#include \"app/gui/workbench.h\""},  // a header outside the rooms
      {"app/cli/g.cpp", "#include \"app/gui/study/study_document.h\""},  // the window's code is the window's
      // Programs share code only through app/command_line, which uses none of theirs.
      {"app/train/c.cpp", "#include \"app/cli/command_parser.h\""},
      {"app/cli/h.cpp", "#include \"app/train/rank.h\""},
      {"app/command_line/a.cpp", "#include \"app/cli/commands.h\""},
      {"app/gui/shell/a.cpp", "#include \"app/cli/commands.h\""},
      {"app/gui/study/c.cpp", "#include \"app/command_line/command_parser.h\""},
  };
  for (const Case& c : forbidden) {
    ScratchDir dir("layering");
    // Headers that exist, so the relative cases resolve like real ones: one inside the tree, one beside it.
    plant(dir, "repo/io/volume/nifti.h", "#pragma once\n");
    plant(dir, "repo/io/volume/nifti_internal.h", "#pragma once\n");
    plant(dir, "repo/app/gui/shell/main_window.h", "#pragma once\n");
    plant(dir, "outside.h", "#pragma once\n");
    plant(dir, std::string("repo/") + c.file, std::string("#pragma once\n#include <vector>\n") + c.include + "\n");
    const auto report = checkLayering(dir.path() / "repo");
    INFO(c.file << ": " << c.include);
    REQUIRE(report.violations.size() == 1);
    REQUIRE(report.violations[0].line == 3);
    REQUIRE(report.violations[0].file.generic_string() == c.file);
  }
}

TEST_CASE("a raw string holding a comment marker does not hide the include after it", "[layering]") {
  ScratchDir dir("layering-raw");
  plant(dir, "core/a.h", "#pragma once\nconst char* r = R\"(/* not a comment)\";\n#include <QString>\n");
  const auto report = checkLayering(dir.path());
  REQUIRE(report.violations.size() == 1);
  REQUIRE(report.violations[0].line == 3);
}

TEST_CASE("the checker accepts what each layer may use, and ignores commented-out includes", "[layering]") {
  ScratchDir dir("layering-ok");
  plant(dir, "core/a.h", "#include <vector>\n#include \"core/geometry.h\"\n#include \"b.h\"\n");
  plant(dir, "core/b.h", "// #include <QString>\n/*\n#include <" "torch/torch.h>\n*/\nconst char* u = \"http://x\";\n"
                         "const char* raw = R\"x(\n#include <QWidget>\n/* not a comment\n)x\";\n");
  plant(dir, "io/dicom/a.cpp", "#include \"core/volume.h\"\n#include <openjpeg.h>\n#include <dcmtk/dcmdata/dctk.h>\n"
                               "#include <zlib.h>\n#include \"../../core/b.h\"\n#include \"io/dicom/dicom_internal.h\"\n");
  plant(dir, "io/volume/c.cpp", "#include <itkGiplImageIO.h>\n#include \"io/volume/itk_formats.h\"\n");
  plant(dir, "io/share/b.cpp", "#include \"io/volume/nifti.h\"\n#include \"io/base/atomic_file.h\"\n"
                               "#include \"io/share/share_store.h\"\n");
  plant(dir, "io/pacs/a.cpp", "#include <dcmtk/dcmnet/scu.h>\n#include <dcmtk/dcmtls/tlsscu.h>\n#include <curl/curl.h>\n"
                              "#include \"io/studies/study_import.h\"\n#include \"io/dicom/dicom_series.h\"\n");
  plant(dir, "inference/classic/a.cpp", "#include <itkImage.h>\n#include \"core/volume.h\"\n");
  plant(dir, "inference/vista3d/a.cpp", "#include <" "torch/torch.h>\n#include \"inference/engine.h\"\n");
  plant(dir, "viewer/a.cpp", "#include <vtkImageData.h>\n#include <QOpenGLWidget>\n#include \"core/volume.h\"\n");
  plant(dir, "app/gui/views/a.cpp", "#include <QMainWindow>\n#include \"inference/engine.h\"\n#include \"viewer/x.h\"\n");
  plant(dir, "app/gui/shell/main_window_menus.cpp",
        "#include \"app/gui/shell/main_window.h\"\n#include \"app/gui/base/workbench.h\"\n");
  plant(dir, "app/gui/ai/a.cpp", "#include \"app/gui/editing/edit_tools.h\"\n#include \"app/gui/study/study_document.h\"\n"
                                 "#include \"app/gui/ai/ai_panel.h\"\n");
  plant(dir, "app/cli/a.cpp", "#include \"io/volume/nifti.h\"\n#include \"inference/engine.h\"\n#include <nlohmann/json.hpp>\n");
  plant(dir, "app/train/a.cpp", "#include \"inference/training/trainer.h\"\n#include \"io/share/share_store.h\"\n"
                                "#include \"app/command_line/command_parser.h\"\n#include \"app/train/rank.h\"\n");
  const auto report = checkLayering(dir.path());
  for (const auto& x : report.violations) UNSCOPED_INFO(describe(x));
  REQUIRE(report.violations.empty());
  REQUIRE(report.filesScanned == 14);
  REQUIRE(report.includesChecked == 41);  // 3+0+6+2+3+5+2+2+3+2+3+3+3+4: none from the comments
}

TEST_CASE("an io source outside the rooms is refused", "[layering]") {
  ScratchDir dir("layering-io-room");
  plant(dir, "io/loose.cpp", "#include <vector>\n");
  const auto report = checkLayering(dir.path());
  REQUIRE(report.violations.size() == 1);
  REQUIRE(report.violations[0].file.generic_string() == "io/loose.cpp");
  REQUIRE(report.violations[0].rule.find("rooms") != std::string::npos);
}

TEST_CASE("an app/gui source outside the rooms is refused", "[layering]") {
  ScratchDir dir("layering-gui-room");
  plant(dir, "app/gui/loose_dock.cpp", "#include <vector>\n");
  const auto report = checkLayering(dir.path());
  REQUIRE(report.violations.size() == 1);
  REQUIRE(report.violations[0].file.generic_string() == "app/gui/loose_dock.cpp");
  REQUIRE(report.violations[0].rule.find("rooms") != std::string::npos);
}

namespace {
// The rules name these rooms; a renamed or emptied folder would leave a rule guarding nothing.
void requireRooms(const fs::path& folder, std::initializer_list<const char*> rooms) {
  for (const char* room : rooms) {
    INFO(folder / room);
    REQUIRE(fs::is_directory(folder / room));
    REQUIRE(fs::exists(folder / room / "README.md"));
    std::size_t sources = 0;
    for (const auto& e : fs::directory_iterator(folder / room))
      if (e.path().extension() == ".cpp" || e.path().extension() == ".h") ++sources;
    REQUIRE(sources > 0);
  }
}
}  // namespace

TEST_CASE("the real app/gui tree: every room exists, has its README and sources", "[layering]") {
  requireRooms(fs::path(DELINEATE_SOURCE_DIR) / "app" / "gui",
               {"base", "study", "views", "editing", "ai", "training", "reports", "shell"});
}

TEST_CASE("the real io tree: every room exists and none is empty", "[layering]") {
  requireRooms(fs::path(DELINEATE_SOURCE_DIR) / "io",
               {"base", "volume", "dicom", "labels", "report", "share", "autosave", "studies", "pacs"});
}
