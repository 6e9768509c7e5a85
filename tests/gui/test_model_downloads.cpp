// AI > Get Models (issue 44, item 6) against a real HTTP server on loopback: a known model downloaded on the window's
// workers with its hash checked, a wrong hash refused and named in the dialog, a file registered, and "Use for
// VISTA-3D" making model:NAME the checkpoint the AI dock builds its engine from.
#include <catch2/catch.hpp>

#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QTableWidget>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "app/gui/ai/model_downloads.h"
#include "app/gui/shell/main_window.h"
#include "io/models/model_store.h"
#include "tests/common/range_server.h"
#include "tests/common/test_support.h"
#include "tests/gui/gui_fixtures.h"
#include "tests/gui_support/gui_app.h"

using namespace delineate;
namespace fs = std::filesystem;
using test::QuietWindow;
using test::waitFor;

TEST_CASE("Get Models: a URL downloaded and verified on the workers, a wrong hash refused by name, a file registered, "
          "and Use makes model:NAME the VISTA-3D checkpoint",
          "[gui][model]") {
  test::guiApp();
  test::ScratchDir dir("gui-models");
  const std::string cache = (dir / "cache").string();
  ::setenv("XDG_CACHE_HOME", cache.c_str(), 1);
  fs::create_directories(dir / "www");
  const std::string hash = test::writeRandomFile(dir / "www" / "net.pt", 400000, 7);
  test::RangeServer server(dir, dir / "www", "--break-after 100000", "server");
  const QString before = QSettings().value("ai/checkpoint").toString();

  QuietWindow window;
  app::gui::ModelDownloadsDialog* dialog = window.showModelDownloads();
  REQUIRE(dialog);
  // The installed (here the source tree's) list: VISTA-3D with its licence.
  REQUIRE(dialog->known()->rowCount() >= 1);
  CHECK(dialog->known()->item(0, 0)->text() == "vista3d");
  CHECK(dialog->known()->item(0, 2)->text().contains("non-commercial"));
  CHECK(dialog->cached()->rowCount() == 0);

  QSignalSpy finished(dialog, &app::gui::ModelDownloadsDialog::finished);
  REQUIRE(dialog->download(QString::fromStdString(server.url("net.pt")), "net", QString::fromStdString(hash)));
  REQUIRE(waitFor(finished));
  CHECK(finished.front().at(0).toBool());
  CHECK(dialog->status()->text().contains("model:net"));
  CHECK(dialog->status()->text().contains("1 broken connection"));  // broken after 100 kB, resumed
  REQUIRE(dialog->cached()->rowCount() == 1);
  CHECK(dialog->cached()->item(0, 2)->text().contains("verified"));

  finished.clear();
  REQUIRE(dialog->download(QString::fromStdString(server.url("net.pt")), "wrong", QString(64, 'b')));
  REQUIRE(waitFor(finished));
  CHECK_FALSE(finished.front().at(0).toBool());
  CHECK(dialog->status()->text().contains(QString::fromStdString(hash)));
  CHECK(dialog->cached()->rowCount() == 1);
  // A known model without a direct download says where to get it instead of starting anything.
  CHECK_FALSE(dialog->download("vista3d"));
  CHECK(dialog->status()->text().contains("Register File"));

  finished.clear();
  REQUIRE(dialog->registerFile(QString::fromStdString((dir / "www" / "net.pt").string()), "mine"));
  REQUIRE(waitFor(finished));
  CHECK(finished.front().at(0).toBool());
  CHECK(dialog->cached()->rowCount() == 2);

  QSignalSpy used(dialog, &app::gui::ModelDownloadsDialog::useRequested);
  dialog->use("net");
  REQUIRE(used.count() == 1);
  CHECK(QSettings().value("ai/checkpoint").toString() == "model:net");
  CHECK(io::resolveModelReference("model:net").value() == (fs::path(cache) / "delineate/models/net/net.pt").string());
  QSettings().setValue("ai/checkpoint", before);
  ::unsetenv("XDG_CACHE_HOME");
}
