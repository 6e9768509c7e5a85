#include "app/gui/pacs/pacs_servers_page.h"

#include <QColor>
#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QThreadPool>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrent>

#include <optional>

#include "app/gui/base/error_text.h"
#include "app/gui/pacs/pacs_peer.h"
#include "app/gui/pacs/pacs_servers_dialog.h"

namespace delineate::app::gui {

namespace {

// What a Test found, made on the worker and put into words on the GUI thread.
struct TestAnswer {
  std::optional<core::Error> error;
  qint64 milliseconds = 0;
};

// pacsEcho, timed. Runs on a worker thread.
TestAnswer testServer(const PacsServer& server, const QString& secret) {
  TestAnswer answer;
  QElapsedTimer clock;
  clock.start();
  if (const core::Status answered = pacsEcho(server, secret); !answered) answer.error = answered.error();
  answer.milliseconds = clock.elapsed();
  return answer;
}

}  // namespace

PacsServersPage::PacsServersPage(QWidget* parent, QThreadPool* workers)
    : QWidget(parent), m_servers(pacsServers()), m_saved(m_servers), m_workers(workers ? workers : QThreadPool::globalInstance()) {
  setObjectName("pacs-servers-page");
  auto* layout = new QVBoxLayout(this);
  auto* intro = new QLabel(tr("The PACS the window queries and retrieves from. Passwords and tokens are kept in the "
                              "desktop keyring, never in the settings file."),
                           this);
  intro->setWordWrap(true);
  layout->addWidget(intro);
  auto* row = new QHBoxLayout();
  m_list = new QListWidget(this);
  m_list->setObjectName("pacs-server-list");
  row->addWidget(m_list, 1);
  auto* buttons = new QVBoxLayout();
  m_add = new QPushButton(tr("&Add..."), this);
  m_edit = new QPushButton(tr("&Edit..."), this);
  m_remove = new QPushButton(tr("&Remove"), this);
  m_test = new QPushButton(tr("&Test"), this);
  m_test->setToolTip(tr("C-ECHO (DIMSE) or a study query (DICOMweb): whether the server answers us"));
  for (QPushButton* b : {m_add, m_edit, m_remove, m_test}) buttons->addWidget(b);
  buttons->addStretch(1);
  row->addLayout(buttons);
  layout->addLayout(row, 1);
  m_testResult = new QLabel(this);
  m_testResult->setObjectName("pacs-test-result");
  m_testResult->setWordWrap(true);
  m_testResult->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(m_testResult);
  m_status = new QLabel(this);
  m_status->setObjectName("pacs-status");
  m_status->setWordWrap(true);
  m_status->hide();
  layout->addWidget(m_status);

  connect(m_add, &QPushButton::clicked, this, [this] { openEditor(-1); });
  connect(m_edit, &QPushButton::clicked, this, [this] { openEditor(m_list->currentRow()); });
  connect(m_list, &QListWidget::itemDoubleClicked, this, [this] { openEditor(m_list->currentRow()); });
  connect(m_remove, &QPushButton::clicked, this, &PacsServersPage::removeSelected);
  connect(m_test, &QPushButton::clicked, this, &PacsServersPage::testSelected);
  connect(m_list, &QListWidget::currentRowChanged, this, &PacsServersPage::updateButtons);
  fillList(m_servers.isEmpty() ? -1 : 0);
}

void PacsServersPage::fillList(int select) {
  m_list->clear();
  for (const PacsServer& s : m_servers) {
    auto* item = new QListWidgetItem(QStringLiteral("%1 \u2014 %2").arg(s.name, s.address()), m_list);
    const QString problem = s.problem();
    if (!problem.isEmpty()) {
      // A server whose CA file went away since: listed, and why it cannot be used.
      item->setText(tr("%1 (%2)").arg(item->text(), problem));
      item->setForeground(QColor(0xc6, 0x28, 0x28));
    }
    item->setToolTip(problem);
  }
  m_list->setCurrentRow(select);
  updateButtons();
}

void PacsServersPage::updateButtons() {
  const bool selected = m_list->currentRow() >= 0 && m_list->currentRow() < m_servers.size();
  m_edit->setEnabled(selected);
  m_remove->setEnabled(selected);
  m_test->setEnabled(selected && !m_testing);
}

void PacsServersPage::setStatus(const QString& text, bool warning) {
  m_status->setText(text);
  m_status->setStyleSheet(warning ? QStringLiteral("color: #c62828;") : QString());
  m_status->setVisible(!text.isEmpty());
}

void PacsServersPage::openEditor(int row) {
  if (m_editor || row >= m_servers.size()) return;
  const bool adding = row < 0;
  const PacsServer before = adding ? PacsServer{} : m_servers[row];
  QString secret;
  if (!adding && before.needsSecret()) {
    if (m_pending.contains(before.name)) {
      secret = m_pending.value(before.name);
    } else {
      // Pre-filled from the keyring, so that OK without touching it keeps it.
      const SecretOutcome read = readPacsSecret(before.name);
      secret = read.secret;
      if (!read.ok) setStatus(read.error, true);
    }
  }
  QStringList taken;
  for (int i = 0; i < m_servers.size(); ++i)
    if (i != row) taken << m_servers[i].name;
  auto* dialog = new PacsServerDialog(before, secret, taken, this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  m_editor = dialog;
  // The editor slot is free again as soon as the dialog closes; the dialog itself is deleted later.
  connect(dialog, &QDialog::finished, this, [this] { m_editor = nullptr; });
  connect(dialog, &QDialog::accepted, this, [this, dialog, row, adding, before, secret] {
    const PacsServer after = dialog->server();
    const QString newSecret = dialog->secret();
    if (adding) m_servers.append(after);
    else m_servers[row] = after;
    // A secret goes to the keyring under the server's name: a new one, a changed one, or the old one under a new
    // name (apply() removes the entry under the old name).
    if (!adding && before.name != after.name) m_pending.remove(before.name);
    if (after.needsSecret() && (adding || newSecret != secret || before.name != after.name || !before.needsSecret()))
      m_pending.insert(after.name, newSecret);
    else if (!after.needsSecret())
      m_pending.remove(after.name);
    m_modified = true;
    fillList(adding ? int(m_servers.size()) - 1 : row);
  });
  dialog->open();
  Q_EMIT editorOpened(dialog);
}

void PacsServersPage::removeSelected() {
  const int row = m_list->currentRow();
  if (row < 0 || row >= m_servers.size()) return;
  m_pending.remove(m_servers[row].name);
  m_servers.removeAt(row);
  m_modified = true;
  fillList(std::min(row, int(m_servers.size()) - 1));
}

void PacsServersPage::testSelected() {
  const int row = m_list->currentRow();
  if (m_testing || row < 0 || row >= m_servers.size()) return;
  const PacsServer server = m_servers[row];
  const auto finish = [this](bool ok, const QString& text) {
    m_testResult->setText(text);
    m_testResult->setStyleSheet(ok ? QString() : QStringLiteral("color: #c62828;"));
    Q_EMIT testFinished(ok, text);
  };
  if (const QString problem = server.problem(); !problem.isEmpty()) {
    finish(false, tr("%1: %2").arg(server.name, problem));
    return;
  }
  QString secret;
  if (server.needsSecret()) {
    if (m_pending.contains(server.name)) {
      secret = m_pending.value(server.name);
    } else {
      const SecretOutcome read = readPacsSecret(server.name);
      if (!read.ok) {
        finish(false, tr("%1: %2").arg(server.name, read.error));
        return;
      }
      secret = read.secret;
    }
  }
  m_testing = true;
  updateButtons();
  m_testResult->setStyleSheet(QString());
  m_testResult->setText(tr("Asking %1 (%2)...").arg(server.name, server.address()));
  auto* watcher = new QFutureWatcher<TestAnswer>(this);
  connect(watcher, &QFutureWatcher<TestAnswer>::finished, this, [this, watcher, server, finish] {
    const TestAnswer answer = watcher->result();
    watcher->deleteLater();
    m_testing = false;
    updateButtons();
    if (answer.error) finish(false, fromError(*answer.error));
    else finish(true, tr("%1 (%2) answered in %3 ms").arg(server.name, server.address()).arg(answer.milliseconds));
  });
  watcher->setFuture(QtConcurrent::run(m_workers, [server, secret] { return testServer(server, secret); }));
}

bool PacsServersPage::apply() {
  m_sessionOnly = false;
  if (m_modified) {
    QString error;
    if (!savePacsServers(m_servers, &error)) {
      setStatus(error, true);
      return false;
    }
  }
  QStringList notes;
  // The keyring entries no server needs now: removed, renamed, or no longer asking for a secret.
  const auto needsUnder = [this](const QString& name) {
    for (const PacsServer& s : m_servers)
      if (s.name == name) return s.needsSecret();
    return false;
  };
  for (const PacsServer& old : m_saved) {
    if (!old.needsSecret() || needsUnder(old.name)) continue;
    const SecretOutcome removed = removePacsSecret(old.name);
    if (!removed.ok) notes << removed.error;
  }
  for (auto it = m_pending.constBegin(); it != m_pending.constEnd(); ++it) {
    if (!needsUnder(it.key())) continue;
    const SecretOutcome stored = storePacsSecret(it.key(), it.value());
    if (!stored.inKeyring) {
      m_sessionOnly = true;
      notes << stored.error;
    }
  }
  m_pending.clear();
  m_saved = m_servers;
  m_modified = false;
  setStatus(notes.join('\n'), !notes.isEmpty());
  return true;
}

}  // namespace delineate::app::gui
