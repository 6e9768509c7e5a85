#pragma once
// File > Send to PACS (issue 42, item 6): the open study's DICOM SEG and its measurement report (SR, TID 1500) sent to
// a PACS server of the preferences, by C-STORE or STOW-RS, in the background with progress and Cancel. The files are
// made in a private folder of this computer's cache first (the window's exports write them) and removed after. The
// dialog stays open with the reason when the PACS refuses them (the labels in the window are untouched).

#include <QDialog>
#include <QList>
#include <QString>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "app/gui/pacs/pacs_servers.h"
#include "core/error.h"

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;

namespace delineate::app::gui {

class Workbench;

class PacsSendDialog : public QDialog {
  Q_OBJECT

 public:
  // Writes the files to send into the (empty, owner-only) folder it is given, on the GUI thread; their paths or why
  // they could not be made.
  using FileMaker = std::function<core::Result<std::vector<std::string>>(const QString& folder)>;
  PacsSendDialog(Workbench& bench, FileMaker makeFiles, QWidget* parent = nullptr);
  ~PacsSendDialog() override;

  void setServers(const QList<PacsServer>& servers);
  // Makes the files and starts sending them to the chosen server; sent follows. False when it cannot start (no
  // server, the files could not be made, a secret missing: said in the state line).
  bool send();
  void cancel();
  bool running() const;

  QComboBox* serverBox() const { return m_server; }
  QPushButton* sendButton() const { return m_send; }
  QPushButton* cancelButton() const { return m_cancel; }
  QProgressBar* progressBar() const { return m_progress; }
  QLabel* stateLabel() const { return m_state; }

 Q_SIGNALS:
  void sent(bool ok);

 private:
  void showState(const QString& text, bool error);
  void setRunning(bool on);
  struct Running;
  Workbench& m_bench;
  FileMaker m_makeFiles;
  QList<PacsServer> m_servers;
  std::shared_ptr<Running> m_running;
  QComboBox* m_server = nullptr;
  QPushButton *m_send = nullptr, *m_cancel = nullptr;
  QProgressBar* m_progress = nullptr;
  QLabel* m_state = nullptr;
};

}  // namespace delineate::app::gui
