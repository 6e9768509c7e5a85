// The PACS servers the window knows (issue 42, item 6): kept in the settings without their secrets, passwords and
// tokens in the desktop keyring (or, where none answers, for this session only, said on the page), edited on the
// preferences' PACS Servers page as a user does, and tested against a real Orthanc from a worker thread.
//
// The "[.keyring]" cases need a real Secret Service: CTest runs them as "gui: PACS secrets in a real keyring", inside
// a private D-Bus session with its own GNOME Keyring (tests/gui/keyring_session.sh).
#include <catch2/catch.hpp>

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTest>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <tuple>

#include "app/gui/pacs/pacs_servers.h"
#include "app/gui/pacs/pacs_servers_dialog.h"
#include "app/gui/pacs/pacs_servers_page.h"
#include "app/gui/shell/preferences.h"
#include "tests/common/test_support.h"
#include "tests/gui_support/gui_app.h"
#include "tests/pacs/orthanc_server.h"

using namespace delineate;
using app::gui::PacsServer;
using app::gui::PacsServerDialog;
using app::gui::PacsServersPage;
using app::gui::PreferencesDialog;

namespace {

std::string str(const QString& s) { return s.toStdString(); }

// Each case starts and ends without servers in the (test process's scratch) settings.
struct NoServersBefore {
  NoServersBefore() { clear(); }
  ~NoServersBefore() { clear(); }
  static void clear() {
    QSettings settings;
    settings.remove("pacs/servers");
    settings.sync();
  }
};

// No keyring answers: the session bus is an address nobody listens on, so libsecret fails at once. Unsetting the
// variable would not do: GLib then looks for $XDG_RUNTIME_DIR/bus and autolaunches a bus on the X display, whose
// activation could start a real keyring daemon. GLib keeps no session connection after a failed one, so the address
// is read again on every keyring call, and restoring it afterwards gives later cases the bus they had (the keyring
// run checks this). A connection that did succeed earlier in the process would be kept, though: then the store
// below would reach that keyring and the case fail on inKeyring, loudly.
struct NoKeyring {
  std::optional<std::string> before;
  NoKeyring() {
    if (const char* v = std::getenv("DBUS_SESSION_BUS_ADDRESS")) before = v;
    setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/delineate-tests-no-bus", 1);
  }
  ~NoKeyring() {
    if (before) setenv("DBUS_SESSION_BUS_ADDRESS", before->c_str(), 1);
    else unsetenv("DBUS_SESSION_BUS_ADDRESS");
  }
};

std::string fileBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The settings file (after a sync) holds `text`.
bool settingsFileHolds(const std::string& text) {
  QSettings settings;
  settings.sync();
  const std::string bytes = fileBytes(settings.fileName().toStdString());
  REQUIRE_FALSE(bytes.empty());
  return bytes.find(text) != std::string::npos;
}

// Files under the test process's scratch folder (settings, caches, runtime: where QtKeychain's insecure fallback
// would write its plain-text settings) that hold `text`.
std::vector<std::string> scratchFilesHolding(const std::string& text) {
  const std::filesystem::path config = qEnvironmentVariable("XDG_CONFIG_HOME").toStdString();
  REQUIRE_FALSE(config.empty());
  std::vector<std::string> found;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(config.parent_path(), ec);
       it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    if (it->is_regular_file(ec) && fileBytes(it->path()).find(text) != std::string::npos)
      found.push_back(it->path().string());
  }
  return found;
}

PacsServer dimseServer(const std::string& name, const std::string& ae, int port) {
  PacsServer s;
  s.name = QString::fromStdString(name);
  s.aeTitle = QString::fromStdString(ae);
  s.host = "127.0.0.1";
  s.port = port;
  return s;
}

PacsServer webServer(const std::string& name, const std::string& url) {
  PacsServer s;
  s.name = QString::fromStdString(name);
  s.protocol = PacsServer::Protocol::DicomWeb;
  s.url = QString::fromStdString(url);
  return s;
}

// Every field, so that a field the settings lose fails by name.
void checkSame(const PacsServer& a, const PacsServer& b) {
  INFO(str(a.name));
  CHECK(str(a.name) == str(b.name));
  CHECK(a.protocol == b.protocol);
  CHECK(str(a.aeTitle) == str(b.aeTitle));
  CHECK(str(a.host) == str(b.host));
  CHECK(a.port == b.port);
  CHECK(str(a.callingAe) == str(b.callingAe));
  CHECK(a.retrieval == b.retrieval);
  CHECK(str(a.moveAe) == str(b.moveAe));
  CHECK(a.movePort == b.movePort);
  CHECK(str(a.url) == str(b.url));
  CHECK(a.auth == b.auth);
  CHECK(str(a.user) == str(b.user));
  CHECK(a.tls == b.tls);
  CHECK(str(a.caFile) == str(b.caFile));
  CHECK(str(a.certificateFile) == str(b.certificateFile));
  CHECK(str(a.privateKeyFile) == str(b.privateKeyFile));
  CHECK(a.inFlight == b.inFlight);
}

// The preferences' own OK (its button box, not an editor's).
QPushButton* preferencesOk(PreferencesDialog& prefs) {
  const auto boxes = prefs.findChildren<QDialogButtonBox*>(QString(), Qt::FindDirectChildrenOnly);
  REQUIRE(boxes.size() == 1);
  return boxes.front()->button(QDialogButtonBox::Ok);
}

// Types into a field as a user does (replacing what is there).
void type(QLineEdit* edit, const std::string& text) {
  edit->selectAll();
  QTest::keyClick(edit, Qt::Key_Backspace);
  QTest::keyClicks(edit, QString::fromStdString(text));
}

void choose(QComboBox* box, int data) {
  const int index = box->findData(data);
  REQUIRE(index >= 0);
  box->setCurrentIndex(index);
}

// Add on the page: the editor it opens.
PacsServerDialog* openAdd(PacsServersPage& page) {
  QTest::mouseClick(page.addButton(), Qt::LeftButton);
  REQUIRE(page.editor());
  REQUIRE(page.editor()->isVisible());
  return page.editor();
}

void pressOk(PacsServerDialog* editor) {
  INFO(str(editor->problemLabel()->text()));
  REQUIRE(editor->okButton()->isEnabled());
  QTest::mouseClick(editor->okButton(), Qt::LeftButton);
  CHECK_FALSE(editor->isVisible());
}

void addWeb(PacsServersPage& page, const std::string& name, const std::string& url, const std::string& user,
            const std::string& password) {
  PacsServerDialog* editor = openAdd(page);
  type(editor->nameEdit(), name);
  choose(editor->protocolBox(), int(PacsServer::Protocol::DicomWeb));
  type(editor->urlEdit(), url);
  choose(editor->authBox(), int(PacsServer::Auth::Basic));
  type(editor->userEdit(), user);
  CHECK(editor->secretEdit()->echoMode() == QLineEdit::Password);
  type(editor->secretEdit(), password);
  pressOk(editor);
}

void addDimse(PacsServersPage& page, const std::string& name, const std::string& ae, int port) {
  PacsServerDialog* editor = openAdd(page);
  type(editor->nameEdit(), name);
  choose(editor->protocolBox(), int(PacsServer::Protocol::Dimse));
  type(editor->aeTitleEdit(), ae);
  type(editor->hostEdit(), "127.0.0.1");
  editor->portBox()->setValue(port);
  pressOk(editor);
}

// Test on the page's server `row`; checks that the GUI thread was not kept waiting, then waits for the answer.
std::pair<bool, std::string> runTest(PacsServersPage& page, int row) {
  page.serverList()->setCurrentRow(row);
  QSignalSpy finished(&page, &PacsServersPage::testFinished);
  QTest::mouseClick(page.testButton(), Qt::LeftButton);
  // The click returned before the answer: the question runs on a worker, the page says it is asking.
  CHECK(finished.count() == 0);
  CHECK(page.testLabel()->text().startsWith("Asking"));
  CHECK_FALSE(page.testButton()->isEnabled());
  REQUIRE((finished.count() > 0 || finished.wait(60000)));
  CHECK(page.testButton()->isEnabled());
  const std::string text = str(finished.front().at(1).toString());
  CHECK(str(page.testLabel()->text()) == text);
  return {finished.front().at(0).toBool(), text};
}

}  // namespace

TEST_CASE("PACS servers: the settings round trip, names are unique, and each problem names its field",
          "[gui][pacs-servers]") {
  test::guiApp();
  NoServersBefore clean;
  test::ScratchDir dir("gui-pacs-servers");
  const std::string ca = (dir / "ca.pem").string(), cert = (dir / "me.pem").string(), key = (dir / "me.key").string();
  for (const auto& f : {ca, cert, key}) test::writeTextFile(f, "-----BEGIN CERTIFICATE-----\n");

  PacsServer dimse = dimseServer("Hospital PACS", "PACS_AE", 11112);
  dimse.callingAe = "LAB_WS";
  dimse.retrieval = PacsServer::Retrieval::Move;
  dimse.moveAe = "LAB_SCP";
  dimse.movePort = 11113;
  dimse.tls = true;
  dimse.caFile = QString::fromStdString(ca);
  dimse.certificateFile = QString::fromStdString(cert);
  dimse.privateKeyFile = QString::fromStdString(key);
  dimse.inFlight = 6;
  PacsServer web = webServer("Research DICOMweb", "https://pacs.example.org/dicom-web");
  web.auth = PacsServer::Auth::Basic;
  web.user = "alice";
  web.inFlight = 2;
  PacsServer bearer = webServer("Cloud", "http://127.0.0.1:8042/dicom-web");
  bearer.auth = PacsServer::Auth::Bearer;
  CHECK(str(dimse.problem()).empty());
  CHECK(str(web.problem()).empty());  // https with the system's certificate authorities: nothing else needed
  CHECK(str(bearer.problem()).empty());

  QString error;
  REQUIRE(app::gui::savePacsServers({dimse, web, bearer}, &error));
  CHECK(error.isEmpty());
  const auto read = app::gui::pacsServers();
  REQUIRE(read.size() == 3);  // in the order saved
  checkSame(read[0], dimse);
  checkSame(read[1], web);
  checkSame(read[2], bearer);
  CHECK(settingsFileHolds("Research DICOMweb"));
  // A shorter list leaves no entry of the longer one behind.
  REQUIRE(app::gui::savePacsServers({web}));
  REQUIRE(app::gui::pacsServers().size() == 1);
  CHECK_FALSE(settingsFileHolds("Hospital PACS"));

  // Names are unique whatever their case; a refused list leaves the settings as they were.
  PacsServer twin = bearer;
  twin.name = "research dicomweb";
  CHECK_FALSE(app::gui::savePacsServers({web, twin}, &error));
  CHECK(str(error) == "Two PACS servers are named 'research dicomweb'");
  PacsServer broken = dimse;
  broken.port = 0;
  CHECK_FALSE(app::gui::savePacsServers({broken}, &error));
  CHECK(str(error) == "PACS server 'Hospital PACS': Port 0 is not a port (1 to 65535)");
  REQUIRE(app::gui::pacsServers().size() == 1);
  CHECK(str(app::gui::pacsServers()[0].name) == "Research DICOMweb");

  // Each problem names its field (and the value or file where there is one).
  const auto problemOf = [](PacsServer s, auto change) {
    change(s);
    return str(s.problem());
  };
  using S = PacsServer&;
  CHECK(problemOf(dimse, [](S s) { s.name = "  "; }) == "The name is empty");
  CHECK(problemOf(dimse, [](S s) { s.aeTitle = "A\\B"; }) == "AE title 'A\\B' is not an AE title (1 to 16 characters, no backslash)");
  CHECK(problemOf(dimse, [](S s) { s.aeTitle = "SEVENTEEN_CHARS_X"; }).rfind("AE title 'SEVENTEEN_CHARS_X'", 0) == 0);
  CHECK(problemOf(dimse, [](S s) { s.aeTitle.clear(); }).rfind("AE title ''", 0) == 0);
  CHECK(problemOf(dimse, [](S s) { s.host.clear(); }) == "The host is empty");
  CHECK(problemOf(dimse, [](S s) { s.port = 65536; }) == "Port 65536 is not a port (1 to 65535)");
  CHECK(problemOf(dimse, [](S s) { s.callingAe = "WE\\US"; }).rfind("Our AE title 'WE\\US'", 0) == 0);
  CHECK(problemOf(dimse, [](S s) { s.moveAe = "BAD\\SCP"; }).rfind("C-MOVE AE title 'BAD\\SCP'", 0) == 0);
  CHECK(problemOf(dimse, [](S s) { s.movePort = 0; }) == "C-MOVE port 0 is not a port (1 to 65535)");
  CHECK(problemOf(dimse, [](S s) { s.retrieval = PacsServer::Retrieval::Get; s.movePort = 0; }).empty());  // C-GET: unused
  CHECK(problemOf(dimse, [](S s) { s.caFile.clear(); }) == "TLS needs the CA file the PACS's certificate chains to");
  CHECK(problemOf(dimse, [&](S s) { s.caFile = QString::fromStdString((dir / "gone.pem").string()); }) ==
        "CA file '" + (dir / "gone.pem").string() + "' does not exist");
  CHECK(problemOf(dimse, [&](S s) { s.certificateFile = QString::fromStdString(dir.path().string()); }) ==
        "Our certificate '" + dir.path().string() + "' is not a file");
  CHECK(problemOf(dimse, [&](S s) { s.privateKeyFile = QString::fromStdString((dir / "no.key").string()); }) ==
        "Our private key '" + (dir / "no.key").string() + "' does not exist");
  CHECK(problemOf(dimse, [](S s) { s.privateKeyFile.clear(); }) == "Our certificate needs its private key");
  CHECK(problemOf(dimse, [](S s) { s.tls = false; s.caFile = "/gone/ca.pem"; }).empty());  // TLS off: not used
  CHECK(problemOf(dimse, [](S s) { s.inFlight = 0; }) == "Requests in flight 0 is not between 1 and 16");
  CHECK(problemOf(dimse, [](S s) { s.inFlight = 17; }) == "Requests in flight 17 is not between 1 and 16");
  CHECK(problemOf(web, [](S s) { s.url = "ftp://pacs.example.org/dicom-web"; }) ==
        "URL 'ftp://pacs.example.org/dicom-web' is not an http:// or https:// URL");
  CHECK(problemOf(web, [](S s) { s.url = "pacs.example.org/dicom-web"; }).rfind("URL 'pacs.example.org/dicom-web'", 0) == 0);
  CHECK(problemOf(web, [](S s) { s.url = "https:///dicom-web"; }).rfind("URL 'https:///dicom-web'", 0) == 0);
  // A password in the URL would land in the settings file: refused, and not repeated in the message.
  const std::string inUrl = problemOf(web, [](S s) { s.url = "https://alice:hunter2@pacs.example.org/dicom-web"; });
  CHECK(inUrl == "URL 'https://pacs.example.org/dicom-web' holds a user name or password: use the authentication fields");
  CHECK(problemOf(bearer, [](S s) { s.tls = true; }) == "TLS needs an https:// URL");
  CHECK(problemOf(web, [](S s) { s.user.clear(); }) == "Basic authentication needs a user name");
  CHECK(problemOf(web, [&](S s) { s.caFile = QString::fromStdString((dir / "gone.pem").string()); })
            .rfind("CA file '", 0) == 0);

  // The io peers.
  CHECK(str(dimse.address()) == "PACS_AE@127.0.0.1:11112");
  CHECK(str(web.address()) == "https://pacs.example.org/dicom-web");
  const io::DimseNode node = dimse.dimseNode();
  CHECK(node.aeTitle == "PACS_AE");
  CHECK(node.host == "127.0.0.1");
  CHECK(node.port == 11112);
  CHECK(node.tls.enabled);
  CHECK(node.tls.caFile == ca);
  CHECK(node.tls.certificateFile == cert);
  CHECK(node.tls.privateKeyFile == key);
  CHECK(web.needsSecret());
  CHECK_FALSE(dimse.needsSecret());
  const io::DicomWebService basic = web.webService("pw");
  CHECK(basic.baseUrl == "https://pacs.example.org/dicom-web");
  CHECK(basic.user == "alice");
  CHECK(basic.password == "pw");
  CHECK(basic.bearerToken.empty());
  CHECK(basic.tls.enabled);
  const io::DicomWebService token = bearer.webService("tok");
  CHECK(token.bearerToken == "tok");
  CHECK(token.user.empty());
  CHECK(token.password.empty());
  CHECK_FALSE(token.tls.enabled);
}

TEST_CASE("PACS servers: the edit dialog shows the chosen protocol's fields and refuses OK while the server has a "
          "problem or its name is taken",
          "[gui][pacs-servers]") {
  test::guiApp();
  PacsServerDialog dialog(PacsServer{}, QString(), {"Existing PACS"});
  dialog.show();
  // A new server: DIMSE, nothing filled in yet.
  CHECK(dialog.dimseFields()->isVisible());
  CHECK_FALSE(dialog.webFields()->isVisible());
  CHECK_FALSE(dialog.okButton()->isEnabled());
  CHECK(dialog.problemLabel()->isVisible());
  CHECK(str(dialog.problemLabel()->text()) == "The name is empty");
  CHECK(dialog.problemLabel()->styleSheet().contains("color"));
  CHECK_FALSE(dialog.moveAeEdit()->isVisible());  // C-GET until C-MOVE is chosen
  type(dialog.nameEdit(), "existing pacs");
  type(dialog.aeTitleEdit(), "ORTHANC");
  type(dialog.hostEdit(), "pacs.local");
  CHECK(str(dialog.problemLabel()->text()) == "Another server is named 'Existing PACS'");
  CHECK_FALSE(dialog.okButton()->isEnabled());
  // Enter on a refused form does not close it either.
  dialog.accept();
  CHECK(dialog.isVisible());
  CHECK(dialog.result() == 0);
  type(dialog.nameEdit(), "New PACS");
  CHECK(dialog.okButton()->isEnabled());
  CHECK_FALSE(dialog.problemLabel()->isVisible());
  choose(dialog.retrievalBox(), int(PacsServer::Retrieval::Move));
  CHECK(dialog.moveAeEdit()->isVisible());
  CHECK(dialog.movePortBox()->isVisible());
  type(dialog.aeTitleEdit(), "BAD\\AE");
  CHECK(dialog.problemLabel()->text().startsWith("AE title 'BAD\\AE'"));
  CHECK_FALSE(dialog.okButton()->isEnabled());
  type(dialog.aeTitleEdit(), "ORTHANC");
  dialog.tlsBox()->setChecked(true);
  CHECK(str(dialog.problemLabel()->text()) == "TLS needs the CA file the PACS's certificate chains to");
  type(dialog.caFileEdit(), "/nonexistent/ca.pem");
  CHECK(str(dialog.problemLabel()->text()) == "CA file '/nonexistent/ca.pem' does not exist");
  dialog.tlsBox()->setChecked(false);
  CHECK(dialog.okButton()->isEnabled());
  const PacsServer dimse = dialog.server();
  CHECK(str(dimse.name) == "New PACS");
  CHECK(dimse.retrieval == PacsServer::Retrieval::Move);
  CHECK(str(dimse.address()) == "ORTHANC@pacs.local:104");

  // DICOMweb: its fields instead, the password in a password field, and the secret required when authenticating.
  choose(dialog.protocolBox(), int(PacsServer::Protocol::DicomWeb));
  CHECK_FALSE(dialog.dimseFields()->isVisible());
  CHECK(dialog.webFields()->isVisible());
  CHECK_FALSE(dialog.secretEdit()->isVisible());  // no authentication yet
  type(dialog.urlEdit(), "http://pacs.local/dicom-web");
  CHECK(dialog.okButton()->isEnabled());
  CHECK_FALSE(dialog.tlsBox()->isChecked());  // the URL's scheme decides
  choose(dialog.authBox(), int(PacsServer::Auth::Basic));
  CHECK(dialog.userEdit()->isVisible());
  CHECK(dialog.secretEdit()->isVisible());
  CHECK(dialog.secretEdit()->echoMode() == QLineEdit::Password);
  CHECK(str(dialog.problemLabel()->text()) == "Basic authentication needs a user name");
  type(dialog.userEdit(), "alice");
  CHECK(str(dialog.problemLabel()->text()) == "The password is empty");
  type(dialog.secretEdit(), "pw");
  CHECK(dialog.okButton()->isEnabled());
  choose(dialog.authBox(), int(PacsServer::Auth::Bearer));
  CHECK_FALSE(dialog.userEdit()->isVisible());
  CHECK(dialog.okButton()->isEnabled());  // the same field holds the token
  type(dialog.urlEdit(), "https://pacs.local/dicom-web");
  CHECK(dialog.tlsBox()->isChecked());
  CHECK(dialog.server().tls);
  // https:// uses the TLS files: the CA file typed for DIMSE above is checked now.
  CHECK(str(dialog.problemLabel()->text()) == "CA file '/nonexistent/ca.pem' does not exist");
  type(dialog.caFileEdit(), "");
  CHECK(dialog.okButton()->isEnabled());
  CHECK(str(dialog.secret()) == "pw");
  choose(dialog.authBox(), int(PacsServer::Auth::None));
  CHECK(dialog.secret().isEmpty());  // nothing to keep for a server that needs none
  QTest::mouseClick(dialog.okButton(), Qt::LeftButton);
  CHECK(dialog.result() == QDialog::Accepted);
}

TEST_CASE("PACS servers: the preferences save them with Apply or OK, and Cancel drops what was not applied",
          "[gui][pacs-servers]") {
  test::guiApp();
  NoServersBefore clean;
  const auto buttonOf = [](PreferencesDialog& prefs, QDialogButtonBox::StandardButton which) {
    const auto boxes = prefs.findChildren<QDialogButtonBox*>(QString(), Qt::FindDirectChildrenOnly);
    REQUIRE(boxes.size() == 1);
    REQUIRE(boxes.front()->button(which));
    return boxes.front()->button(which);
  };
  {
    PreferencesDialog prefs;
    prefs.show();
    addDimse(*prefs.pacsPage(), "Not kept", "NOT_KEPT", 104);
    QTest::mouseClick(buttonOf(prefs, QDialogButtonBox::Cancel), Qt::LeftButton);
    CHECK(prefs.result() == QDialog::Rejected);
  }
  CHECK(app::gui::pacsServers().empty());
  {
    PreferencesDialog prefs;
    prefs.show();
    PacsServersPage* page = prefs.pacsPage();
    addDimse(*page, "Applied", "APPLIED", 11112);
    CHECK(page->modified());
    QTest::mouseClick(buttonOf(prefs, QDialogButtonBox::Apply), Qt::LeftButton);
    CHECK_FALSE(page->modified());
    REQUIRE(app::gui::pacsServers().size() == 1);
    CHECK(str(app::gui::pacsServers()[0].address()) == "APPLIED@127.0.0.1:11112");
    CHECK_FALSE(page->statusLabel()->isVisible());  // no secret, nothing to say
    addDimse(*page, "Later", "LATER", 104);
    // Cancel after Apply: what was applied stays, and the window hears "accepted" to pick it up; the rest goes.
    QTest::mouseClick(buttonOf(prefs, QDialogButtonBox::Cancel), Qt::LeftButton);
    CHECK(prefs.result() == QDialog::Accepted);
  }
  REQUIRE(app::gui::pacsServers().size() == 1);
  {
    PreferencesDialog prefs;
    prefs.show();
    PacsServersPage* page = prefs.pacsPage();
    REQUIRE(page->serverList()->count() == 1);
    CHECK(str(page->serverList()->item(0)->text()) == "Applied \u2014 APPLIED@127.0.0.1:11112");
  }
  {
    // A server whose TLS CA file went away since it was saved is listed with its problem.
    QSettings settings;
    settings.setValue("pacs/servers/1/tls", true);  // QSettings arrays count from 1
    settings.setValue("pacs/servers/1/caFile", "/nonexistent/ca.pem");
  }
  {
    PreferencesDialog prefs;
    PacsServersPage* page = prefs.pacsPage();
    REQUIRE(page->serverList()->count() == 1);
    CHECK(str(page->serverList()->item(0)->text()) ==
          "Applied \u2014 APPLIED@127.0.0.1:11112 (CA file '/nonexistent/ca.pem' does not exist)");
    // Test says so instead of asking.
    QSignalSpy finished(page, &PacsServersPage::testFinished);
    page->serverList()->setCurrentRow(0);
    QTest::mouseClick(page->testButton(), Qt::LeftButton);
    REQUIRE(finished.count() == 1);
    CHECK(str(page->testLabel()->text()) == "Applied: CA file '/nonexistent/ca.pem' does not exist");
    // OK with nothing changed writes nothing and closes.
    QTest::mouseClick(preferencesOk(prefs), Qt::LeftButton);
    CHECK(prefs.result() == QDialog::Accepted);
  }
}

TEST_CASE("PACS servers: without a keyring a secret is kept for this session only, the page says so, and no file "
          "holds it",
          "[gui][pacs-servers]") {
  test::guiApp();
  NoServersBefore clean;
  NoKeyring noKeyring;
  const std::string password = "session-only-Pw-7431";
  {
    PreferencesDialog prefs;
    prefs.show();
    PacsServersPage* page = prefs.pacsPage();
    REQUIRE(page);
    CHECK(str(prefs.tabs()->tabText(0)) == "General");
    CHECK(str(prefs.tabs()->tabText(1)) == "PACS Servers");
    prefs.tabs()->setCurrentWidget(page);
    addWeb(*page, "Web PACS", "http://127.0.0.1:9/dicom-web", "alice", password);
    REQUIRE(page->servers().size() == 1);
    CHECK(str(page->serverList()->item(0)->text()) == "Web PACS \u2014 http://127.0.0.1:9/dicom-web");
    CHECK_FALSE(settingsFileHolds("Web PACS"));  // nothing is written before OK or Apply
    prefs.tabs()->setCurrentIndex(0);
    QTest::mouseClick(preferencesOk(prefs), Qt::LeftButton);
    // Not silently: the dialog stays open on the PACS Servers page, which says so.
    CHECK(prefs.isVisible());
    CHECK(prefs.tabs()->currentWidget() == page);
    CHECK(page->secretsSessionOnly());
    CHECK(page->statusLabel()->isVisible());
    const std::string said = str(page->statusLabel()->text());
    INFO(said);
    CHECK(said.find("no keyring answered") != std::string::npos);
    CHECK(said.find("'Web PACS' is kept for this session only") != std::string::npos);
    CHECK(said.find(password) == std::string::npos);
    // The server is in the settings, its password is in no file.
    CHECK(settingsFileHolds("Web PACS"));
    CHECK_FALSE(settingsFileHolds(password));
    CHECK(scratchFilesHolding(password).empty());
    // OK again closes: nothing is left to save.
    QTest::mouseClick(preferencesOk(prefs), Qt::LeftButton);
    CHECK(prefs.result() == QDialog::Accepted);
    CHECK_FALSE(prefs.isVisible());
  }
  const auto read = app::gui::readPacsSecret("Web PACS");
  CHECK(read.ok);
  CHECK_FALSE(read.inKeyring);
  CHECK(str(read.secret) == password);
  {
    // Editing in this session shows it.
    PreferencesDialog prefs;
    prefs.show();
    PacsServersPage* page = prefs.pacsPage();
    REQUIRE(page->servers().size() == 1);
    page->serverList()->setCurrentRow(0);
    QTest::mouseClick(page->editButton(), Qt::LeftButton);
    REQUIRE(page->editor());
    CHECK(str(page->editor()->secretEdit()->text()) == password);
    CHECK(page->editor()->secretEdit()->echoMode() == QLineEdit::Password);
    page->editor()->reject();
    // Removing the server removes its secret.
    QTest::mouseClick(page->removeButton(), Qt::LeftButton);
    CHECK(page->servers().empty());
    CHECK(page->serverList()->count() == 0);
    CHECK_FALSE(page->removeButton()->isEnabled());
    QTest::mouseClick(preferencesOk(prefs), Qt::LeftButton);
    CHECK(prefs.result() == QDialog::Accepted);
    INFO(str(page->statusLabel()->text()));
    CHECK_FALSE(page->secretsSessionOnly());
  }
  CHECK(app::gui::pacsServers().empty());
  const auto gone = app::gui::readPacsSecret("Web PACS");
  CHECK_FALSE(gone.ok);
  CHECK(gone.secret.isEmpty());
  CHECK(str(gone.error).find("no keyring answered") == 0);
  // A direct store says the same as the page.
  const auto stored = app::gui::storePacsSecret("Direct", "x");
  CHECK(stored.ok);
  CHECK_FALSE(stored.inKeyring);
  CHECK(str(stored.error).find("kept for this session only") != std::string::npos);
  CHECK(app::gui::removePacsSecret("Direct").ok);
  CHECK_FALSE(app::gui::readPacsSecret("Direct").ok);
}

TEST_CASE("PACS servers: Test answers from a real Orthanc over DIMSE and DICOMweb, names a 401, and names the peer "
          "when nobody listens",
          "[gui][pacs-servers]") {
  test::guiApp();
  if (!test::orthancForTests()) return;
  NoServersBefore clean;
  NoKeyring noKeyring;  // the secrets entered on the page are used before any is stored
  test::OrthancOptions options;
  options.httpUsers = {{"alice", "right:Pw-1"}};
  test::OrthancServer orthanc(options);
  orthanc.start();
  PacsServersPage page;
  page.show();
  CHECK_FALSE(page.testButton()->isEnabled());  // nothing selected

  addDimse(page, "Orthanc DIMSE", orthanc.aeTitle(), orthanc.dicomPort());
  bool answered = false;
  std::string text;
  std::tie(answered, text) = runTest(page, 0);
  INFO(text);
  CHECK(answered);
  CHECK(text.rfind("Orthanc DIMSE (ORTHANC@127.0.0.1:" + std::to_string(orthanc.dicomPort()) + ") answered in ", 0) == 0);
  CHECK(text.size() > 3);
  CHECK(text.substr(text.size() - 3) == " ms");

  const int closed = test::freeLoopbackPort();
  addDimse(page, "Nobody", "NOBODY", closed);
  std::tie(answered, text) = runTest(page, 1);
  INFO(text);
  CHECK_FALSE(answered);
  CHECK(text.rfind("NOBODY@127.0.0.1:" + std::to_string(closed) + ": ", 0) == 0);  // the peer, then the reason
  CHECK(text.find(": connect: ") != std::string::npos);
  CHECK(page.testLabel()->styleSheet().contains("color"));

  addWeb(page, "Orthanc web", orthanc.dicomWebUrl(), "alice", "right:Pw-1");
  std::tie(answered, text) = runTest(page, 2);
  INFO(text);
  CHECK(answered);
  CHECK(text.find("answered in") != std::string::npos);
  // A wrong password, as a user corrects it in the editor: the 401 is named, the password is not shown.
  page.serverList()->setCurrentRow(2);
  QTest::mouseClick(page.editButton(), Qt::LeftButton);
  REQUIRE(page.editor());
  CHECK(str(page.editor()->secretEdit()->text()) == "right:Pw-1");
  type(page.editor()->secretEdit(), "wrong-Pw-2");
  pressOk(page.editor());
  std::tie(answered, text) = runTest(page, 2);
  INFO(text);
  CHECK_FALSE(answered);
  CHECK(text.find(orthanc.dicomWebUrl()) == 0);
  CHECK(text.find("401") != std::string::npos);
  CHECK(text.find("wrong-Pw-2") == std::string::npos);
}

// Under tests/gui/keyring_session.sh: a private D-Bus session with its own GNOME Keyring.
namespace {
bool inKeyringSession() {
  if (qEnvironmentVariableIsEmpty("DBUS_SESSION_BUS_ADDRESS")) {
    FAIL("no session bus: run these through CTest's \"gui: PACS secrets in a real keyring\" "
         "(tests/gui/keyring_session.sh)");
    return false;
  }
  return true;
}

// What the keyring itself says, through libsecret's own command line tool (not through QtKeychain).
std::string secretToolLookup(const std::string& name) {
  std::string out;
  const int status = test::runCommand("secret-tool lookup server 'Delineate PACS' user '" + name + "'", &out);
  return status == 0 ? out : std::string();
}
}  // namespace

TEST_CASE("PACS servers: a password entered on the page goes to a real keyring and no file, is pre-filled when "
          "editing, follows a rename and goes with its server",
          "[.keyring]") {
  test::guiApp();
  if (!inKeyringSession()) return;
  NoServersBefore clean;
  {
    // Before anything reached the keyring in this process: a bus that does not answer is not remembered, so the
    // cases without a keyring (NoKeyring) leave no stale state behind, and the real keyring works right after.
    NoKeyring noKeyring;
    const auto probe = app::gui::storePacsSecret("Probe", "probe-Pw");
    CHECK(probe.ok);
    CHECK_FALSE(probe.inKeyring);
    CHECK(app::gui::removePacsSecret("Probe").ok);
  }
  const std::string password = "keyring-Pw-4711";
  {
    PreferencesDialog prefs;
    prefs.show();
    addWeb(*prefs.pacsPage(), "Keyring PACS", "https://pacs.example.org/dicom-web", "alice", password);
    QTest::mouseClick(preferencesOk(prefs), Qt::LeftButton);
    INFO(str(prefs.pacsPage()->statusLabel()->text()));
    CHECK_FALSE(prefs.pacsPage()->secretsSessionOnly());
    CHECK(prefs.result() == QDialog::Accepted);
  }
  // In the keyring, as libsecret's own tool reads it, and through a fresh read.
  CHECK(secretToolLookup("Keyring PACS") == password);
  const auto read = app::gui::readPacsSecret("Keyring PACS");
  CHECK(read.ok);
  CHECK(read.inKeyring);
  CHECK(str(read.secret) == password);
  // In no file of ours: the settings hold the server, never its password.
  CHECK(settingsFileHolds("Keyring PACS"));
  CHECK_FALSE(settingsFileHolds(password));
  CHECK(scratchFilesHolding(password).empty());
  {
    // Editing shows it; renaming moves it.
    PreferencesDialog prefs;
    prefs.show();
    PacsServersPage* page = prefs.pacsPage();
    REQUIRE(page->servers().size() == 1);
    page->serverList()->setCurrentRow(0);
    QTest::mouseClick(page->editButton(), Qt::LeftButton);
    REQUIRE(page->editor());
    CHECK(str(page->editor()->secretEdit()->text()) == password);
    CHECK(page->editor()->secretEdit()->echoMode() == QLineEdit::Password);
    type(page->editor()->nameEdit(), "Renamed PACS");
    pressOk(page->editor());
    QTest::mouseClick(preferencesOk(prefs), Qt::LeftButton);
    CHECK(prefs.result() == QDialog::Accepted);
  }
  CHECK(secretToolLookup("Keyring PACS").empty());
  CHECK(secretToolLookup("Renamed PACS") == password);
  CHECK_FALSE(app::gui::readPacsSecret("Keyring PACS").ok);
  {
    // A server that no longer authenticates needs no secret: its entry goes.
    PreferencesDialog prefs;
    PacsServersPage* page = prefs.pacsPage();
    prefs.show();
    page->serverList()->setCurrentRow(0);
    QTest::mouseClick(page->editButton(), Qt::LeftButton);
    REQUIRE(page->editor());
    choose(page->editor()->authBox(), int(PacsServer::Auth::None));
    pressOk(page->editor());
    REQUIRE(prefs.apply());
    CHECK(secretToolLookup("Renamed PACS").empty());
    // Authenticating again, then removing the server: its secret goes with it.
    QTest::mouseClick(page->editButton(), Qt::LeftButton);
    REQUIRE(page->editor());
    choose(page->editor()->authBox(), int(PacsServer::Auth::Basic));
    type(page->editor()->userEdit(), "alice");
    type(page->editor()->secretEdit(), password);
    pressOk(page->editor());
    REQUIRE(prefs.apply());
    CHECK(secretToolLookup("Renamed PACS") == password);
    QTest::mouseClick(page->removeButton(), Qt::LeftButton);
    QTest::mouseClick(preferencesOk(prefs), Qt::LeftButton);
    CHECK(prefs.result() == QDialog::Accepted);
  }
  CHECK(app::gui::pacsServers().empty());
  CHECK(secretToolLookup("Renamed PACS").empty());
  std::string all;
  test::runCommand("secret-tool search --all server 'Delineate PACS'", &all);
  CHECK(all.find(password) == std::string::npos);
  const auto gone = app::gui::readPacsSecret("Renamed PACS");
  CHECK_FALSE(gone.ok);
  CHECK(str(gone.error) == "the keyring holds no secret for 'Renamed PACS'");
}

TEST_CASE("PACS servers: Test reads the password from a real keyring, the right one answers and a wrong one is named "
          "as 401",
          "[.keyring]") {
  test::guiApp();
  if (!inKeyringSession() || !test::orthancForTests()) return;
  NoServersBefore clean;
  test::OrthancOptions options;
  options.httpUsers = {{"bob", "Keyring-right-9"}};
  test::OrthancServer orthanc(options);
  orthanc.start();
  {
    PreferencesDialog prefs;
    prefs.show();
    addWeb(*prefs.pacsPage(), "Orthanc", orthanc.dicomWebUrl(), "bob", "Keyring-right-9");
    REQUIRE(prefs.apply());
    CHECK_FALSE(prefs.pacsPage()->secretsSessionOnly());
  }
  CHECK(secretToolLookup("Orthanc") == "Keyring-right-9");
  PacsServersPage page;  // a fresh page: no secret entered, it must come from the keyring
  page.show();
  bool answered = false;
  std::string text;
  std::tie(answered, text) = runTest(page, 0);
  INFO(text);
  CHECK(answered);
  CHECK(text.find("answered in") != std::string::npos);
  // A wrong password in the keyring (put there by another program): Test names the 401.
  REQUIRE(app::gui::storePacsSecret("Orthanc", "Keyring-wrong-0").inKeyring);
  std::tie(answered, text) = runTest(page, 0);
  INFO(text);
  CHECK_FALSE(answered);
  CHECK(text.find("401") != std::string::npos);
  CHECK(text.find("Keyring-wrong-0") == std::string::npos);
  // No secret at all: said at once, nothing is asked of the server.
  CHECK(app::gui::removePacsSecret("Orthanc").ok);
  QSignalSpy finished(&page, &PacsServersPage::testFinished);
  QTest::mouseClick(page.testButton(), Qt::LeftButton);
  REQUIRE(finished.count() == 1);
  CHECK_FALSE(finished.front().at(0).toBool());
  CHECK(str(page.testLabel()->text()) == "Orthanc: the keyring holds no secret for 'Orthanc'");
}
