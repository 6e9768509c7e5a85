#include "app/gui/pacs/pacs_send.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileInfo>
#include <QFormLayout>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrent>

#include "app/gui/base/error_text.h"
#include "app/gui/base/job.h"
#include "app/gui/base/workbench.h"
#include "app/gui/pacs/pacs_peer.h"
#include "io/base/file_modes.h"
#include "io/studies/study_store.h"

namespace delineate::app::gui {

struct PacsSendDialog::Running {
  std::shared_ptr<JobProgress> job = std::make_shared<JobProgress>();
  std::unique_ptr<QTemporaryDir> folder;  // the files sent, removed with it
  QTimer poll;
};

PacsSendDialog::PacsSendDialog(Workbench& bench, FileMaker makeFiles, QWidget* parent)
    : QDialog(parent), m_bench(bench), m_makeFiles(std::move(makeFiles)) {
  setWindowTitle(tr("Send to PACS"));
  m_server = new QComboBox(this);
  m_server->setMinimumWidth(320);
  m_send = new QPushButton(tr("&Send"), this);
  m_send->setDefault(true);
  m_cancel = new QPushButton(tr("Cancel"), this);
  auto* close = new QPushButton(tr("Close"), this);
  m_progress = new QProgressBar(this);
  m_progress->setRange(0, 1000);
  m_state = new QLabel(this);
  m_state->setWordWrap(true);
  m_state->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* form = new QFormLayout;
  form->addRow(tr("Server:"), m_server);
  form->addRow(tr("What:"), new QLabel(tr("the labels as a DICOM SEG and their measurement report (SR)"), this));
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(m_progress, 1);
  buttons->addWidget(m_cancel);
  buttons->addWidget(m_send);
  buttons->addWidget(close);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addLayout(buttons);
  layout->addWidget(m_state);
  connect(m_send, &QPushButton::clicked, this, [this] { send(); });
  connect(m_cancel, &QPushButton::clicked, this, &PacsSendDialog::cancel);
  connect(close, &QPushButton::clicked, this, &QDialog::reject);
  setRunning(false);
}

PacsSendDialog::~PacsSendDialog() {
  if (m_running) m_running->job->cancel();
}

void PacsSendDialog::setServers(const QList<PacsServer>& servers) {
  m_servers = servers;
  m_server->clear();
  for (const PacsServer& s : servers) m_server->addItem(serverLabel(s));
  if (servers.isEmpty()) showState(tr("No PACS server is set up: add one in Preferences, PACS Servers"), true);
}

bool PacsSendDialog::running() const { return m_running != nullptr; }

void PacsSendDialog::showState(const QString& text, bool error) {
  m_state->setStyleSheet(error ? QStringLiteral("color: #c0392b") : QString());
  m_state->setText(text);
}

void PacsSendDialog::setRunning(bool on) {
  m_send->setEnabled(!on);
  m_server->setEnabled(!on);
  m_cancel->setEnabled(on);
}

void PacsSendDialog::cancel() {
  if (!m_running) return;
  m_running->job->cancel();
  showState(tr("Cancelling..."), false);
}

bool PacsSendDialog::send() {
  if (m_running) return false;
  const int index = m_server->currentIndex();
  if (index < 0 || index >= m_servers.size()) {
    showState(tr("No PACS server is set up: add one in Preferences, PACS Servers"), true);
    return false;
  }
  const PacsServer server = m_servers[index];
  const ServerSecret secret = secretFor(server);
  if (!secret.error.isEmpty()) {
    showState(secret.error, true);
    return false;
  }
  // A private folder of the user's cache (QTemporaryDir makes it owner-only): the SEG names the patient.
  const QString outgoing = QString::fromStdString(io::userCacheFolder()) + "/pacs";
  if (core::Status made = io::createFolders(outgoing.toStdString(), io::FileAccess::Private); !made) {
    showState(tr("The files to send could not be made: %1").arg(fromError(made.error())), true);
    return false;
  }
  auto running = std::make_shared<Running>();
  running->folder = std::make_unique<QTemporaryDir>(outgoing + "/outgoing-XXXXXX");
  if (!running->folder->isValid()) {
    showState(tr("The files to send could not be made: %1").arg(running->folder->errorString()), true);
    return false;
  }
  auto files = m_makeFiles(running->folder->path());
  if (!files) {
    showState(tr("The files to send could not be made: %1").arg(fromError(files.error())), true);
    return false;
  }
  m_running = running;
  setRunning(true);
  m_progress->setValue(0);
  showState(tr("Sending the SEG and its report to %1...").arg(server.name), false);
  connect(&running->poll, &QTimer::timeout, this, [this, job = running->job] {
    m_progress->setValue(int(job->fraction() * 1000));
  });
  running->poll.start(100);
  auto job = running->job;
  using Stored = core::Result<io::StoreResult>;
  auto* watcher = new QFutureWatcher<std::shared_ptr<Stored>>(this);
  connect(watcher, &QFutureWatcher<std::shared_ptr<Stored>>::finished, this, [this, watcher, running, server] {
    const std::shared_ptr<Stored> stored = watcher->result();
    watcher->deleteLater();
    if (m_running != running) return;
    running->folder.reset();  // the files sent (or not) are removed now
    running->poll.stop();
    m_running.reset();
    setRunning(false);
    if (!*stored) {
      const bool cancelled = stored->error().code == core::ErrorCode::Cancelled;
      showState(cancelled ? tr("Sending cancelled: the PACS may hold part of it")
                          : tr("Not sent: %1").arg(fromError(stored->error())),
                true);
      Q_EMIT sent(false);
      return;
    }
    m_progress->setValue(1000);
    QString summary = tr("Sent to %1 (%2): the SEG and its measurement report").arg(server.name, server.address());
    for (const std::string& m : (*stored)->messages) summary += "\n" + QString::fromStdString(m);
    showState(summary, false);
    m_bench.showStatus(summary.section('\n', 0, 0), 8000);
    Q_EMIT sent(true);
  });
  const QString secretText = secret.secret;
  const std::vector<std::string> paths = *files;
  watcher->setFuture(QtConcurrent::run(&m_bench.workers(), [server, secretText, paths, job] {
    return std::make_shared<Stored>(pacsStore(server, secretText, paths, job.get()));
  }));
  return true;
}

}  // namespace delineate::app::gui
