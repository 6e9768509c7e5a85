#include "app/gui/ai/model_downloads.h"

#include <QFileDialog>
#include <QFormLayout>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrent>

#include <algorithm>

#include "app/gui/base/error_text.h"
#include "app/gui/base/install_paths.h"
#include "app/gui/base/job.h"
#include "app/gui/base/workbench.h"
#include "io/models/model_store.h"

namespace delineate::app::gui {

namespace {

QTableWidgetItem* cell(const QString& text) {
  auto* i = new QTableWidgetItem(text);
  i->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
  i->setToolTip(text);  // long titles, licences and paths in full
  return i;
}

QString megabytes(std::uint64_t bytes) { return bytes ? QString::number(static_cast<double>(bytes) / 1e6, 'f', 1) + " MB" : QString(); }

}  // namespace

struct ModelDownloadsDialog::Impl {
  Workbench& bench;
  std::vector<io::KnownModel> known;
  std::vector<io::CachedModel> cached;
  QString listError;
  QTableWidget* knownTable = nullptr;
  QTableWidget* cachedTable = nullptr;
  QLineEdit* url = nullptr;
  QLineEdit* name = nullptr;
  QLineEdit* sha256 = nullptr;
  QPushButton* downloadButton = nullptr;
  QPushButton* registerButton = nullptr;
  QPushButton* useButton = nullptr;
  QPushButton* cancelButton = nullptr;
  QProgressBar* progress = nullptr;
  QLabel* status = nullptr;
  QTimer* poll = nullptr;
  std::shared_ptr<JobProgress> job;
  explicit Impl(Workbench& b) : bench(b) {}
};

ModelDownloadsDialog::ModelDownloadsDialog(Workbench& bench, QWidget* parent)
    : QDialog(parent), d(std::make_unique<Impl>(bench)) {
  setObjectName("model-downloads");
  setWindowTitle(tr("Get Models"));
  resize(900, 560);
  auto* layout = new QVBoxLayout(this);
  auto* intro = new QLabel(tr("Model weights are not installed with Delineate. Download a known model or one from a "
                              "URL (its SHA-256 is checked before it is used), or register a file you already have. "
                              "Engines find them as model:NAME."),
                           this);
  intro->setWordWrap(true);
  layout->addWidget(intro);
  layout->addWidget(new QLabel(tr("Known public models:"), this));
  d->knownTable = new QTableWidget(0, 5, this);
  d->knownTable->setObjectName("models-known");
  d->knownTable->setHorizontalHeaderLabels({tr("Name"), tr("Model"), tr("Licence"), tr("Size"), tr("Where from")});
  d->knownTable->setWordWrap(true);
  for (int c : {1, 2, 4}) d->knownTable->horizontalHeader()->setSectionResizeMode(c, QHeaderView::Stretch);
  for (int c : {0, 3}) d->knownTable->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
  d->knownTable->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  d->knownTable->setSelectionBehavior(QAbstractItemView::SelectRows);
  d->knownTable->setSelectionMode(QAbstractItemView::SingleSelection);
  layout->addWidget(d->knownTable, 1);
  layout->addWidget(new QLabel(tr("On this computer:"), this));
  d->cachedTable = new QTableWidget(0, 5, this);
  d->cachedTable->setObjectName("models-cached");
  d->cachedTable->setHorizontalHeaderLabels({tr("Name"), tr("File"), tr("SHA-256"), tr("Size"), tr("Licence")});
  for (int c : {0, 2, 3}) d->cachedTable->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
  for (int c : {1, 4}) d->cachedTable->horizontalHeader()->setSectionResizeMode(c, QHeaderView::Stretch);
  d->cachedTable->setSelectionBehavior(QAbstractItemView::SelectRows);
  d->cachedTable->setSelectionMode(QAbstractItemView::SingleSelection);
  layout->addWidget(d->cachedTable, 1);

  auto* form = new QFormLayout;
  d->url = new QLineEdit(this);
  d->url->setObjectName("models-url");
  d->url->setPlaceholderText(tr("a known model's name, or https://..."));
  d->name = new QLineEdit(this);
  d->name->setObjectName("models-name");
  d->name->setPlaceholderText(tr("the name engines find it by (a known model's own by default)"));
  d->sha256 = new QLineEdit(this);
  d->sha256->setObjectName("models-sha256");
  d->sha256->setPlaceholderText(tr("optional: the SHA-256 the file must have"));
  form->addRow(tr("Model or URL:"), d->url);
  form->addRow(tr("Name:"), d->name);
  form->addRow(tr("SHA-256:"), d->sha256);
  layout->addLayout(form);
  d->progress = new QProgressBar(this);
  d->progress->setRange(0, 1000);
  d->progress->setVisible(false);
  layout->addWidget(d->progress);
  d->status = new QLabel(this);
  d->status->setObjectName("models-status");
  d->status->setWordWrap(true);
  d->status->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(d->status);
  auto* buttons = new QHBoxLayout;
  d->downloadButton = new QPushButton(tr("Download"), this);
  d->downloadButton->setObjectName("models-download");
  d->registerButton = new QPushButton(tr("Register File..."), this);
  d->registerButton->setObjectName("models-register");
  d->useButton = new QPushButton(tr("Use for VISTA-3D"), this);
  d->useButton->setObjectName("models-use");
  d->cancelButton = new QPushButton(tr("Cancel Download"), this);
  d->cancelButton->setObjectName("models-cancel");
  d->cancelButton->setVisible(false);
  auto* close = new QPushButton(tr("Close"), this);
  buttons->addWidget(d->downloadButton);
  buttons->addWidget(d->registerButton);
  buttons->addWidget(d->useButton);
  buttons->addWidget(d->cancelButton);
  buttons->addStretch(1);
  buttons->addWidget(close);
  layout->addLayout(buttons);
  d->poll = new QTimer(this);
  d->poll->setInterval(100);
  connect(d->poll, &QTimer::timeout, this, [this] {
    if (d->job) d->progress->setValue(static_cast<int>(d->job->fraction() * 1000));
  });
  connect(d->knownTable, &QTableWidget::itemSelectionChanged, this, [this] {
    const int row = d->knownTable->currentRow();
    if (row >= 0 && row < static_cast<int>(d->known.size())) d->url->setText(QString::fromStdString(d->known[static_cast<std::size_t>(row)].name));
  });
  connect(d->downloadButton, &QPushButton::clicked, this, [this] { download(d->url->text().trimmed(), d->name->text().trimmed(), d->sha256->text().trimmed()); });
  connect(d->registerButton, &QPushButton::clicked, this, [this] {
    const QString file = QFileDialog::getOpenFileName(this, tr("Register a Model File"), QString(),
                                                      tr("Model weights (*.pt *.pth *.safetensors);;All files (*)"));
    if (file.isEmpty()) return;
    QString name = d->name->text().trimmed();
    if (name.isEmpty()) name = QInputDialog::getText(this, tr("Register a Model File"), tr("Name engines find it by:"));
    if (!name.isEmpty()) registerFile(file, name);
  });
  connect(d->useButton, &QPushButton::clicked, this, [this] {
    const int row = d->cachedTable->currentRow();
    if (row >= 0 && row < static_cast<int>(d->cached.size())) use(QString::fromStdString(d->cached[static_cast<std::size_t>(row)].name));
  });
  connect(d->cancelButton, &QPushButton::clicked, this, &ModelDownloadsDialog::cancel);
  connect(close, &QPushButton::clicked, this, &QDialog::close);
  refresh();
}

ModelDownloadsDialog::~ModelDownloadsDialog() {
  if (d->job) d->job->cancel();  // the worker stops between chunks and keeps its .part for a later resume
}

QTableWidget* ModelDownloadsDialog::known() const { return d->knownTable; }
QTableWidget* ModelDownloadsDialog::cached() const { return d->cachedTable; }
QLabel* ModelDownloadsDialog::status() const { return d->status; }

void ModelDownloadsDialog::refresh() {
  auto known = io::readKnownModels(knownModelsPath().toStdString());
  d->known = known ? *known : std::vector<io::KnownModel>{};
  d->listError = known ? QString() : fromError(known.error());
  auto cached = io::listCachedModels({});
  d->cached = cached ? *cached : std::vector<io::CachedModel>{};
  if (!cached) d->listError = fromError(cached.error());
  fill();
}

void ModelDownloadsDialog::fill() {
  d->knownTable->setRowCount(static_cast<int>(d->known.size()));
  for (int r = 0; r < static_cast<int>(d->known.size()); ++r) {
    const io::KnownModel& k = d->known[static_cast<std::size_t>(r)];
    d->knownTable->setItem(r, 0, cell(QString::fromStdString(k.name)));
    d->knownTable->setItem(r, 1, cell(QString::fromStdString(k.title)));
    d->knownTable->setItem(r, 2, cell(QString::fromStdString(k.licence)));
    d->knownTable->setItem(r, 3, cell(megabytes(k.size)));
    d->knownTable->setItem(r, 4, cell(k.url.empty() ? tr("no direct download: %1").arg(QString::fromStdString(k.page))
                                                    : QString::fromStdString(k.url)));
  }
  d->cachedTable->setRowCount(static_cast<int>(d->cached.size()));
  for (int r = 0; r < static_cast<int>(d->cached.size()); ++r) {
    const io::CachedModel& m = d->cached[static_cast<std::size_t>(r)];
    d->cachedTable->setItem(r, 0, cell(QString::fromStdString(m.name)));
    d->cachedTable->setItem(r, 1, cell(QString::fromStdString(m.path)));
    d->cachedTable->setItem(r, 2, cell(QString::fromStdString(m.sha256.substr(0, 16)) + "... " +
                                       (m.verified ? tr("(verified)") : tr("(no published hash)"))));
    d->cachedTable->setItem(r, 3, cell(megabytes(m.size)));
    d->cachedTable->setItem(r, 4, cell(QString::fromStdString(m.licence)));
  }
  if (!d->listError.isEmpty()) d->status->setText(d->listError);
}

void ModelDownloadsDialog::setBusy(bool busy) {
  d->downloadButton->setEnabled(!busy);
  d->registerButton->setEnabled(!busy);
  d->progress->setVisible(busy);
  d->cancelButton->setVisible(busy);
  if (busy) d->poll->start();
  else d->poll->stop();
}

bool ModelDownloadsDialog::download(const QString& nameOrUrl, const QString& name, const QString& sha256) {
  if (d->job) return false;
  io::ModelDownload request;
  request.expectedSha256 = sha256.toStdString();
  if (nameOrUrl.startsWith("http://") || nameOrUrl.startsWith("https://")) {
    if (name.isEmpty()) {
      d->status->setText(tr("A URL needs a name: what engines will find it by."));
      return false;
    }
    request.url = nameOrUrl.toStdString();
    request.name = name.toStdString();
  } else {
    auto it = std::find_if(d->known.begin(), d->known.end(), [&](const io::KnownModel& k) { return k.name == nameOrUrl.toStdString(); });
    if (it == d->known.end()) {
      d->status->setText(tr("%1 is neither a known model nor an http(s) URL.").arg(nameOrUrl));
      return false;
    }
    if (it->url.empty()) {
      d->status->setText(tr("%1 has no direct download: get %2 from %3 (licence: %4), then Register File.")
                             .arg(nameOrUrl, QString::fromStdString(it->file), QString::fromStdString(it->page),
                                  QString::fromStdString(it->licence)));
      return false;
    }
    request.url = it->url;
    request.file = it->file;
    request.name = name.isEmpty() ? it->name : name.toStdString();
    if (request.expectedSha256.empty()) request.expectedSha256 = it->sha256;
    request.licence = it->licence;
    if (d->bench.dialogsEnabled()) {
      const auto answer = QMessageBox::question(
          this, tr("Licence"),
          tr("%1\n\nFrom: %2\nLicence: %3\nSize: %4\nSHA-256: %5\n\nAccept the licence and download?")
              .arg(QString::fromStdString(it->title), QString::fromStdString(it->url), QString::fromStdString(it->licence),
                   it->size ? megabytes(it->size) : tr("not published"),
                   it->sha256.empty() ? tr("none published (recorded as unverified)") : QString::fromStdString(it->sha256)));
      if (answer != QMessageBox::Yes) return false;
    }
  }
  d->job = std::make_shared<JobProgress>();
  request.progress = d->job.get();
  setBusy(true);
  d->status->setText(tr("Downloading %1...").arg(QString::fromStdString(request.url)));
  auto* watcher = new QFutureWatcher<core::Result<io::ModelDownloadResult>>(this);
  connect(watcher, &QFutureWatcher<core::Result<io::ModelDownloadResult>>::finished, this, [this, watcher] {
    const auto result = watcher->result();
    watcher->deleteLater();
    QString message;
    if (result) {
      const io::CachedModel& m = result->model;
      message = tr("%1: %2 MB, SHA-256 %3 (%4). Engines find it as model:%1.")
                    .arg(QString::fromStdString(m.name), QString::number(static_cast<double>(m.size) / 1e6, 'f', 1),
                         QString::fromStdString(m.sha256),
                         m.verified ? tr("verified") : tr("no published hash to check it against"));
      if (result->resumedFrom || result->reconnects)
        message += " " + tr("Resumed: %1 bytes from an earlier download, %2 broken connection(s).")
                             .arg(result->resumedFrom)
                             .arg(result->reconnects);
    } else {
      message = fromError(result.error());
    }
    finish(result.ok(), message);
  });
  watcher->setFuture(QtConcurrent::run(&d->bench.workers(), [request] { return io::downloadModel(request); }));
  return true;
}

bool ModelDownloadsDialog::registerFile(const QString& file, const QString& name) {
  if (d->job) return false;
  std::string sha256 = d->sha256->text().trimmed().toStdString(), licence;
  for (const io::KnownModel& k : d->known)
    if (k.name == name.toStdString()) {
      if (sha256.empty()) sha256 = k.sha256;
      licence = k.licence;
    }
  // Hashing a checkpoint of hundreds of MB takes seconds: on the workers, as a download.
  d->job = std::make_shared<JobProgress>();
  setBusy(true);
  d->cancelButton->setVisible(false);  // a hash runs to its end
  d->status->setText(tr("Hashing %1...").arg(file));
  auto* watcher = new QFutureWatcher<core::Result<io::CachedModel>>(this);
  connect(watcher, &QFutureWatcher<core::Result<io::CachedModel>>::finished, this, [this, watcher, name] {
    const auto result = watcher->result();
    watcher->deleteLater();
    finish(result.ok(), result ? tr("%1 registered: %2 (SHA-256 %3). Engines find it as model:%1.")
                                     .arg(name, QString::fromStdString(result->path), QString::fromStdString(result->sha256))
                               : fromError(result.error()));
  });
  const std::string f = file.toStdString(), n = name.toStdString();
  watcher->setFuture(QtConcurrent::run(&d->bench.workers(), [f, n, sha256, licence] {
    return io::registerModel({}, n, f, sha256, licence);
  }));
  return true;
}

void ModelDownloadsDialog::finish(bool ok, const QString& message) {
  d->job.reset();
  setBusy(false);
  refresh();
  d->status->setText(message);
  Q_EMIT finished(ok, message);
}

void ModelDownloadsDialog::use(const QString& name) {
  const QString reference = "model:" + name;
  QSettings().setValue("ai/checkpoint", reference);
  d->status->setText(tr("The VISTA-3D checkpoint is now %1.").arg(reference));
  Q_EMIT useRequested(reference);
}

void ModelDownloadsDialog::cancel() {
  if (d->job) d->job->cancel();
}

}  // namespace delineate::app::gui
