#include <catch2/catch.hpp>

#include <filesystem>

#include "tests/common/test_support.h"
#include "tests/layering/layer_rules.h"

using namespace delineate::test;
namespace fs = std::filesystem;

TEST_CASE("the source tree respects the layer rules", "[layering]") {
  const auto violations = checkLayering(DELINEATE_SOURCE_DIR);
  for (const auto& v : violations) UNSCOPED_INFO(describe(v));
  REQUIRE(violations.empty());
  // The scan really looked at the tree: core has sources with includes.
  REQUIRE(fs::exists(fs::path(DELINEATE_SOURCE_DIR) / "core" / "geometry.h"));
}

namespace {
void plant(const ScratchDir& dir, const std::string& relative, const std::string& text) {
  fs::create_directories((dir.path() / relative).parent_path());
  writeTextFile(dir.path() / relative, text);
}
}  // namespace

TEST_CASE("the checker catches each planted forbidden include", "[layering]") {
  struct Case {
    const char* file;
    const char* include;
  };
  const Case forbidden[] = {
      {"core/a.h", "#include <QString>"},
      {"core/b.cpp", "#include <vtkImageData.h>"},
      {"core/c.cpp", "#include \"itkImage.h\""},
      {"core/d.cpp", "#include \"io/nifti.h\""},
      {"core/e.cpp", "  #  include <torch/torch.h>"},
      {"io/a.cpp", "#include <QWidget>"},
      {"io/b.cpp", "#include <torch/script.h>"},
      {"io/c.cpp", "#include \"inference/engine.h\""},
      {"inference/a.cpp", "#include <QtCore/QObject>"},
      {"inference/b.cpp", "#include <torch/torch.h>"},
      {"inference/classic/c.cpp", "#include <ATen/ATen.h>"},
      {"inference/vista3d/d.cpp", "#include <QObject>"},
      {"viewer/a.cpp", "#include <dcmtk/dcmdata/dctk.h>"},
      {"viewer/b.cpp", "#include <c10/core/Device.h>"},
      {"app/gui/a.cpp", "#include <torch/torch.h>"},
      {"app/gui/b.cpp", "#include \"inference/vista3d/network.h\""},
      {"app/cli/a.cpp", "#include <QCoreApplication>"},
      {"app/cli/b.cpp", "#include <vtkSmartPointer.h>"},
  };
  for (const Case& c : forbidden) {
    ScratchDir dir("layering");
    plant(dir, c.file, std::string("#pragma once\n#include <vector>\n") + c.include + "\n");
    const auto v = checkLayering(dir.path());
    INFO(c.file << ": " << c.include);
    REQUIRE(v.size() == 1);
    REQUIRE(v[0].line == 3);
    REQUIRE(v[0].file.generic_string() == c.file);
  }
}

TEST_CASE("the checker accepts what each layer may use", "[layering]") {
  ScratchDir dir("layering-ok");
  plant(dir, "core/a.h", "#include <vector>\n#include \"core/geometry.h\"\n");
  plant(dir, "io/a.cpp", "#include \"core/volume.h\"\n#include <itkImage.h>\n#include <dcmtk/dcmdata/dctk.h>\n");
  plant(dir, "inference/classic/a.cpp", "#include <itkImage.h>\n#include \"core/volume.h\"\n");
  plant(dir, "inference/vista3d/a.cpp", "#include <torch/torch.h>\n#include \"inference/engine.h\"\n");
  plant(dir, "viewer/a.cpp", "#include <vtkImageData.h>\n#include <QOpenGLWidget>\n#include \"core/volume.h\"\n");
  plant(dir, "app/gui/a.cpp", "#include <QMainWindow>\n#include \"inference/engine.h\"\n#include \"viewer/x.h\"\n");
  plant(dir, "app/cli/a.cpp", "#include \"io/nifti.h\"\n#include \"inference/engine.h\"\n");
  const auto v = checkLayering(dir.path());
  for (const auto& x : v) UNSCOPED_INFO(describe(x));
  REQUIRE(v.empty());
}
