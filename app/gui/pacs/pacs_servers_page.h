#pragma once
// The preferences' "PACS Servers" page: the servers the window knows (name and address), Add, Edit, Remove, and Test
// (C-ECHO, or a QIDO-RS study query for one study, on a worker thread). Nothing is written until apply(): then the
// servers go to the settings and their passwords and tokens to the desktop keyring (pacs_servers.h); where the
// keyring would not take one, the page says that it is kept for this session only.

#include <QHash>
#include <QList>
#include <QPointer>
#include <QString>
#include <QWidget>

#include "app/gui/pacs/pacs_servers.h"
#include "app/gui/pacs/pacs_servers_dialog.h"

class QLabel;
class QListWidget;
class QPushButton;
class QThreadPool;

namespace delineate::app::gui {

class PacsServersPage : public QWidget {
  Q_OBJECT

 public:
  // `workers`: where Test runs (the window's pool); null: Qt's global pool.
  explicit PacsServersPage(QWidget* parent = nullptr, QThreadPool* workers = nullptr);

  // Saves the servers (when they changed) and the secrets entered since the last apply, and removes from the keyring
  // the secrets of servers removed, renamed or no longer needing one. False when the servers could not be saved
  // (statusLabel() says why; nothing was written).
  bool apply();
  // Whether the last apply() kept a secret for this session only (statusLabel() says whose and why).
  bool secretsSessionOnly() const { return m_sessionOnly; }
  // Whether there are changes apply() would write.
  bool modified() const { return m_modified || !m_pending.isEmpty(); }

  const QList<PacsServer>& servers() const { return m_servers; }
  QListWidget* serverList() const { return m_list; }
  QPushButton* addButton() const { return m_add; }
  QPushButton* editButton() const { return m_edit; }
  QPushButton* removeButton() const { return m_remove; }
  QPushButton* testButton() const { return m_test; }
  QLabel* testLabel() const { return m_testResult; }  // "… answered in N ms", or the error
  QLabel* statusLabel() const { return m_status; }    // secrets kept for this session only, a refused save
  // The Add or Edit dialog while it is open (window-modal), else null.
  PacsServerDialog* editor() const { return m_editor; }

 Q_SIGNALS:
  void editorOpened(delineate::app::gui::PacsServerDialog* dialog);
  // A Test ended: `ok` when the server answered; `text` as testLabel() shows it.
  void testFinished(bool ok, const QString& text);

 private:
  void openEditor(int row);  // -1: a new server
  void removeSelected();
  void testSelected();
  void fillList(int select);
  void updateButtons();
  void setStatus(const QString& text, bool warning);

  QList<PacsServer> m_servers;  // as shown (not yet applied)
  QList<PacsServer> m_saved;    // as in the settings
  QHash<QString, QString> m_pending;  // secrets entered since the last apply, by server name
  bool m_modified = false, m_sessionOnly = false, m_testing = false;
  QListWidget* m_list;
  QPushButton *m_add, *m_edit, *m_remove, *m_test;
  QLabel *m_testResult, *m_status;
  QPointer<PacsServerDialog> m_editor;
  QThreadPool* m_workers;
};

}  // namespace delineate::app::gui
