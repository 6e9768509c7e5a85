#include "app/gui/shell/welcome_panel.h"

#include <QAction>
#include <QEvent>
#include <QGridLayout>
#include <QLabel>
#include <QToolButton>
#include <QVBoxLayout>

namespace delineate::app::gui {

WelcomePanel::WelcomePanel(QWidget* over) : QFrame(over), m_over(over) {
  setObjectName("welcome");
  setAutoFillBackground(true);
  setFrameShape(QFrame::NoFrame);
  auto* outer = new QVBoxLayout(this);
  outer->addStretch(1);
  auto* column = new QWidget(this);
  column->setMaximumWidth(640);
  auto* layout = new QVBoxLayout(column);
  layout->setSpacing(10);
  m_title = new QLabel(column);
  m_title->setObjectName("welcome-title");
  QFont big = m_title->font();
  big.setPointSizeF(big.pointSizeF() * 1.8);
  big.setBold(true);
  m_title->setFont(big);
  layout->addWidget(m_title);
  m_open = new QLabel(column);
  m_open->setWordWrap(true);
  layout->addWidget(m_open);
  m_buttons = new QGridLayout;
  layout->addLayout(m_buttons);
  m_drop = new QLabel(column);
  m_drop->setWordWrap(true);
  layout->addWidget(m_drop);
  m_models = new QLabel(column);
  m_models->setObjectName("welcome-models");
  m_models->setWordWrap(true);
  m_models->setTextFormat(Qt::RichText);
  layout->addSpacing(8);
  layout->addWidget(m_models);
  auto* row = new QHBoxLayout;
  row->addStretch(1);
  row->addWidget(column, 4);
  row->addStretch(1);
  outer->addLayout(row);
  outer->addStretch(2);
  over->installEventFilter(this);
  setGeometry(over->rect());
  raise();
  retranslate();
}

void WelcomePanel::setActions(const QList<QAction*>& actions) {
  while (QLayoutItem* item = m_buttons->takeAt(0)) {
    delete item->widget();
    delete item;
  }
  int i = 0;
  for (QAction* action : actions) {
    auto* button = new QToolButton(this);
    button->setDefaultAction(action);
    button->setToolButtonStyle(Qt::ToolButtonTextOnly);
    button->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    button->setMinimumHeight(32);
    button->setObjectName("welcome-" + action->objectName());
    m_buttons->addWidget(button, i / 2, i % 2);
    ++i;
  }
}

void WelcomePanel::retranslate() {
  m_title->setText(tr("Delineate"));
  m_open->setText(tr("No study is open. Open one:"));
  m_drop->setText(tr("You can also drop an image file (NIfTI, NRRD, MetaImage), a DICOM file or a DICOM folder onto "
                     "this window, or open one from your file manager."));
  m_models->setText(
      tr("<b>Models.</b> Automatic labels work without any download: the classic engine segments body, lungs, airway "
         "and bone on the CPU, and refines any label by clicks. VISTA-3D (127 classes, best on a GPU) needs its "
         "checkpoint, which is not installed with Delineate (for its licence and its size): AI &gt; Get Models says "
         "where to get it, downloads or registers it and makes it the engine's (VISTA-3D also needs the "
         "delineate-torch package). You can also train a model on your own labels in the Training dock."));
}

bool WelcomePanel::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_over && event->type() == QEvent::Resize) setGeometry(m_over->rect());
  if (watched == m_over && event->type() == QEvent::ChildAdded && isVisible()) raise();
  return QFrame::eventFilter(watched, event);
}

}  // namespace delineate::app::gui
