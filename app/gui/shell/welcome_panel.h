#pragma once
// What the window shows while no study is open (issue 44, item 5): how to open a study (a file, a DICOM folder, the
// share, a PACS, the bundled sample), that files and folders may be dropped on the window, and where models come
// from. It lies over the view area and hides once a study opens. Its buttons are the File menu's own actions (text,
// shortcut and enabled state follow them).

#include <QFrame>
#include <QList>

class QAction;
class QGridLayout;
class QLabel;

namespace delineate::app::gui {

class WelcomePanel : public QFrame {
  Q_OBJECT

 public:
  // `over`: the widget it covers (and follows in size).
  explicit WelcomePanel(QWidget* over);
  // The ways to open a study, in order (again after the menus are rebuilt for another language).
  void setActions(const QList<QAction*>& actions);
  void retranslate();

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  QWidget* m_over;
  QLabel* m_title = nullptr;
  QLabel* m_open = nullptr;
  QGridLayout* m_buttons = nullptr;
  QLabel* m_drop = nullptr;
  QLabel* m_models = nullptr;
};

}  // namespace delineate::app::gui
