// The window at 1024x768 (issue 41): every control of every dock is reachable (on screen, or scrolled to within
// its dock), nothing is drawn over anything else, no label is squeezed below the height its text needs, the window
// keeps the size it was given (its docks' minimum sizes do not push it past a small screen) and the slice views keep
// room to work in. In English and in German (longer words).
#include <catch2/catch.hpp>

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QScrollArea>
#include <QSignalSpy>
#include <QSlider>
#include <QStatusBar>
#include <QTest>

#include <string>
#include <vector>

#include "app/gui/shell/main_window.h"
#include "app/gui/shell/preferences.h"
#include "app/gui/views/view_panels.h"
#include "tests/common/test_support.h"
#include "tests/gui/gui_fixtures.h"
#include "tests/gui_support/gui_app.h"

using namespace delineate;
using app::gui::MainWindow;
using test::QuietWindow;

namespace {

bool isControl(const QWidget* w) {
  return qobject_cast<const QAbstractButton*>(w) || qobject_cast<const QAbstractSpinBox*>(w) ||
         qobject_cast<const QComboBox*>(w) || qobject_cast<const QLineEdit*>(w) ||
         qobject_cast<const QAbstractItemView*>(w) || qobject_cast<const QSlider*>(w);
}

// Inside a control (a spin box's line edit, a list's viewport): not a widget of its own to the user.
bool insideControl(const QWidget* w, const QWidget* top) {
  for (const QWidget* p = w->parentWidget(); p && p != top; p = p->parentWidget())
    if (isControl(p)) return true;
  return false;
}

QString describe(const QWidget* w) {
  QString text;
  if (auto* b = qobject_cast<const QAbstractButton*>(w)) text = b->text();
  if (auto* l = qobject_cast<const QLabel*>(w)) text = l->text().left(40);
  return QString("%1 '%2' \"%3\"").arg(w->metaObject()->className(), w->objectName(), text);
}

// What the user sees of a dock's content and can act on: shown controls and labels with text, not inside a control.
std::vector<QWidget*> leaves(QWidget* content) {
  std::vector<QWidget*> out;
  for (QWidget* w : content->findChildren<QWidget*>()) {
    if (!w->isVisibleTo(content) || insideControl(w, content)) continue;
    auto* label = qobject_cast<QLabel*>(w);
    if (isControl(w) || (label && !label->text().isEmpty())) out.push_back(w);
  }
  return out;
}

QRect inContent(const QWidget* w, const QWidget* content) { return QRect(w->mapTo(content, QPoint(0, 0)), w->size()); }

// Checks one dock as it is shown now (raised): returns the number of widgets checked.
int checkDock(MainWindow& window, QDockWidget* dock) {
  auto* scroll = qobject_cast<QScrollArea*>(dock->widget());
  REQUIRE(scroll);  // every dock scrolls
  QWidget* content = scroll->widget();
  const auto widgets = leaves(content);
  const QRect status(window.statusBar()->mapTo(&window, QPoint(0, 0)), window.statusBar()->size());
  for (QWidget* w : widgets) {
    INFO(dock->objectName().toStdString() << ": " << describe(w).toStdString());
    // Never squeezed below what it needs (a word-wrapped label: its height for its width).
    auto* label = qobject_cast<QLabel*>(w);
    const int needed = label && label->wordWrap() && label->hasHeightForWidth() ? label->heightForWidth(w->width())
                                                                               : w->minimumSizeHint().height();
    CHECK(w->height() >= needed);
    CHECK(w->width() >= std::min(w->minimumSizeHint().width(), 40));
    // Scrolled to, it lies wholly within the dock's visible area, and not under the status bar.
    scroll->ensureWidgetVisible(w, 0, 0);
    QApplication::processEvents();
    const QSize shown(w->width(), std::min(w->height(), scroll->viewport()->height()));  // a long list: its top
    CHECK(scroll->viewport()->rect().contains(QRect(w->mapTo(scroll->viewport(), QPoint(0, 0)), shown)));
    const QRect inWindow(w->mapTo(&window, QPoint(0, 0)), shown);
    CHECK_FALSE(inWindow.intersects(status));
    CHECK(window.rect().contains(inWindow));
  }
  // Nothing drawn over anything else.
  for (size_t i = 0; i < widgets.size(); ++i)
    for (size_t j = i + 1; j < widgets.size(); ++j) {
      if (widgets[i]->isAncestorOf(widgets[j]) || widgets[j]->isAncestorOf(widgets[i])) continue;
      INFO(dock->objectName().toStdString() << ": " << describe(widgets[i]).toStdString() << " and "
                                            << describe(widgets[j]).toStdString());
      CHECK_FALSE(inContent(widgets[i], content).intersects(inContent(widgets[j], content)));
    }
  return static_cast<int>(widgets.size());
}

}  // namespace

TEST_CASE("main window at 1024x768: every dock control is reachable, nothing overlaps, the views keep their room",
          "[gui][layout]") {
  test::guiApp();
  const char* language = GENERATE("en", "de");
  REQUIRE(app::gui::installLanguage(language) == language);
  test::ScratchDir dir("gui-layout");
  const std::string labels = test::sampleLabels(dir);
  QuietWindow window(QSize(1024, 768));
  QSignalSpy loaded(&window, &MainWindow::surfacesReady);
  REQUIRE(window.loader().openImage(QString::fromStdString(test::kSampleCt), QString::fromStdString(labels)));
  REQUIRE(test::waitFor(loaded));
  QApplication::processEvents();
  INFO("language " << language);

  // The window keeps the size it was given.
  CHECK(window.size() == QSize(1024, 768));

  // Each slice view keeps at least 280 x 280 pixels in the 2x2 layout.
  for (auto o : {viewer::SliceOrientation::Axial, viewer::SliceOrientation::Sagittal, viewer::SliceOrientation::Coronal}) {
    const QWidget& view = window.slicePanel(o)->view();
    INFO("view " << static_cast<int>(o) << ": " << view.width() << "x" << view.height());
    CHECK(view.width() >= 280);
    CHECK(view.height() >= 280);
  }

  // Every dock, raised in turn, and a closed one comes back from View > Panels.
  const auto docks = window.findChildren<QDockWidget*>();
  REQUIRE(docks.size() == 4);
  int checked = 0;
  for (QDockWidget* dock : docks) {
    dock->raise();
    QApplication::processEvents();
    REQUIRE(dock->isVisible());
    CHECK(dock->width() <= 1024 / 2);
    checked += checkDock(window, dock);
    if (const char* shots = std::getenv("DELINEATE_TEST_SHOTS"))
      window.grab().save(QString("%1/layout-%2-%3.png").arg(shots, language, dock->objectName()));
  }
  CHECK(checked > 40);

  QMenu* panels = window.menuBar()->findChild<QMenu*>("menu-panels");
  REQUIRE(panels);
  CHECK(panels->actions().size() == 4);
  auto* toolsDock = window.findChild<QDockWidget*>("tools-dock");
  REQUIRE(toolsDock);
  QAction* tools = panels->actions().front();
  REQUIRE(tools == toolsDock->toggleViewAction());
  REQUIRE(tools->isChecked());
  tools->trigger();  // closes the Tools dock
  QApplication::processEvents();
  CHECK_FALSE(toolsDock->isVisible());
  tools->trigger();
  QApplication::processEvents();
  CHECK(toolsDock->isVisible());
  REQUIRE(app::gui::installLanguage("en") == "en");
}
