#include "app/gui/training/training_run.h"

#include "app/gui/base/author_name.h"
#include "app/gui/base/install_paths.h"

#include "io/base/file_modes.h"
#include "io/cluster/process.h"
#include "io/cluster/slurm.h"
#include "io/studies/study_store.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QSignalBlocker>
#include <QThread>
#include <QTimer>

#include <signal.h>

#include <algorithm>

namespace delineate::app::gui {

namespace {

// Whether `pid` is a delineate-train process still running (not a zombie, not a reused number).
bool aliveTraining(qint64 pid) {
  if (pid <= 0) return false;
  QFile stat(QString("/proc/%1/stat").arg(pid));
  if (!stat.open(QIODevice::ReadOnly)) return false;
  const QByteArray text = stat.readAll();
  const qsizetype close = text.lastIndexOf(')');
  if (close < 0 || close + 2 >= text.size() || text.at(close + 2) == 'Z') return false;
  return text.mid(text.indexOf('(') + 1, close - text.indexOf('(') - 1).startsWith("delineate-train");
}

QString trainingFolder() { return QString::fromStdString(io::userCacheFolder()) + "/training"; }

// Whether Slurm still lists the job (pending, running, requeued). A controller that does not answer counts as "still
// there": the run is not declared ended on a network hiccup.
// Without squeue here (a workstation that is no Slurm login node) the job cannot be followed: not asked, so the window's
// start-up never waits on it.
bool slurmJobQueued(const QString& job) {
  if (!io::programAvailable("squeue")) return false;
  auto state = io::slurmJobState(job.toStdString(), 5);
  return !state || !state->empty();
}

}  // namespace

TrainingRun::TrainingRun(QObject* parent) : QObject(parent), m_timer(new QTimer(this)) {
  m_timer->setInterval(200);
  connect(m_timer, &QTimer::timeout, this, &TrainingRun::poll);
}

TrainingRun::~TrainingRun() {
  if (m_pid > 0 && !m_keepOnClose && aliveTraining(m_pid)) {
    // A run the window does not keep is stopped with its checkpoint saved.
    ::kill(static_cast<pid_t>(m_pid), SIGTERM);
    for (int i = 0; i < 300 && aliveTraining(m_pid); ++i) QThread::msleep(100);
  }
}

QString TrainingRun::programPath() {
  const QString env = qEnvironmentVariable("DELINEATE_TRAIN");
  if (!env.isEmpty()) return env;
  const QString dir = QCoreApplication::applicationDirPath();
  for (const QString& candidate : {dir + "/delineate-train"})
    if (QFileInfo(candidate).isExecutable()) return QFileInfo(candidate).canonicalFilePath();
#ifdef DELINEATE_TRAIN_BUILD_PATH
  if (runningFromBuildTree() && QFileInfo(DELINEATE_TRAIN_BUILD_PATH).isExecutable()) return DELINEATE_TRAIN_BUILD_PATH;
#endif
  return "delineate-train";  // from PATH
}

QStringList TrainingRun::arguments(const TrainingRequest& r, bool resume) {
  QStringList a{"--json", "--out", r.output, "--model", r.model, "--device", r.device, "--iterations",
                QString::number(r.iterations), "--validation-interval", QString::number(r.validationInterval)};
  if (!r.cases.isEmpty()) a << "--cases" << r.cases;
  if (!r.share.isEmpty()) a << "--share" << r.share;
  if (!r.dataset.isEmpty()) a << "--dataset" << r.dataset;
  // The name publishes the checkpoint to the share; without one the run keeps its checkpoints in its folder (named
  // after the model) and the dock says where.
  if (!r.modelName.isEmpty() && !r.share.isEmpty()) a << "--model-name" << r.modelName;
  if (!r.checkpoint.isEmpty()) a << "--checkpoint" << r.checkpoint;
  if (!r.labels.isEmpty()) a << "--labels" << r.labels;
  if (!r.author.isEmpty()) a << "--author" << r.author;
  if (!r.timeBudget.isEmpty()) a << "--time-budget" << r.timeBudget;
  // A local run's folder is the window's own (in the user's cache): its checkpoints are sealed at rest like the
  // other copies of patient data it keeps there. A Slurm run's folder is on storage the user chose, read by every
  // node: plain files.
  if (!r.slurm) a << "--seal";
  a << r.extra;
  if (resume) a << "--resume";
  return a;
}

bool TrainingRun::start(const TrainingRequest& request, bool resume) {
  if (running()) return false;
  m_request = request;
  m_state = TrainingState{};
  m_error.clear();
  m_pending.clear();
  m_offset = 0;
  m_sawEnd = false;
  (void)io::createFolders(request.output.toStdString(), io::FileAccess::Private);  // 0700 where it is made
  // A Slurm run always resumes from its newest checkpoint when there is one (delineate-train --slurm adds --resume).
  if (request.slurm) return submit(request);
  m_log = request.output + "/run.jsonl";
  if (!resume) {
    QFile::remove(m_log);
  } else {
    // A resumed run continues the plots and the table of the runs before it: their lines are read (not relived: no
    // signal per old line) and the new run's lines are appended to the same log.
    QFile log(m_log);
    if (log.open(QIODevice::ReadOnly)) {
      const QSignalBlocker quiet(this);
      for (const QByteArray& line : log.readAll().split('\n'))
        if (line.trimmed().startsWith('{')) handle(line.trimmed());
      m_offset = log.size();
    }
    m_error.clear();
    m_state.outcome.clear();
  }
  QProcess process;
  process.setProgram(programPath());
  process.setArguments(arguments(request, resume));
  process.setStandardOutputFile(m_log, QIODevice::Append);
  process.setStandardErrorFile(request.output + "/run.log");
  process.setStandardInputFile(QProcess::nullDevice());
  // The preferences' author for whatever it writes (an explicit --author above too).
  process.setProcessEnvironment(authorEnvironment());
  qint64 pid = 0;
  if (!process.startDetached(&pid) || pid <= 0) {
    m_error = tr("cannot start %1: %2").arg(programPath(), process.errorString());
    return false;
  }
  m_pid = pid;
  m_state.running = true;
  // What a later window needs to follow it.
  QJsonObject info{{"pid", pid}, {"program", programPath()}, {"arguments", QJsonArray::fromStringList(arguments(request, resume))},
                   {"modelName", request.modelName}, {"model", request.model}, {"output", request.output}};
  QFile meta(request.output + "/run.json");
  if (meta.open(QIODevice::WriteOnly | QIODevice::Truncate)) meta.write(QJsonDocument(info).toJson());
  m_timer->start();
  Q_EMIT started();
  return true;
}

// delineate-train --slurm: it writes the job's script into OUTPUT/slurm and submits it (seconds); the job's log (its
// JSON lines and its errors) is OUTPUT/slurm/logs/<job>.out, which the nodes write and this object follows.
bool TrainingRun::submit(const TrainingRequest& request) {
  QProcess process;
  process.setProgram(programPath());
  QStringList args = arguments(request, false);
  args << "--slurm" << "--job-dir" << request.output + "/slurm" << request.slurmOptions;
  process.setArguments(args);
  process.setProcessEnvironment(authorEnvironment());
  process.setStandardInputFile(QProcess::nullDevice());
  process.start();
  if (!process.waitForFinished(90000)) {
    process.kill();
    m_error = tr("cannot submit to Slurm: %1").arg(process.errorString());
    return false;
  }
  const QString out = QString::fromUtf8(process.readAllStandardOutput());
  const QString err = QString::fromUtf8(process.readAllStandardError()).trimmed();
  for (const QString& line : out.split('\n')) {
    const QJsonObject e = QJsonDocument::fromJson(line.toUtf8()).object();
    if (e.value("event").toString() == "submitted") m_job = e.value("job").toString();
  }
  if (process.exitCode() != 0 || m_job.isEmpty()) {
    const qsizetype at = err.lastIndexOf("error: ");
    m_error = tr("cannot submit to Slurm: %1").arg(at >= 0 ? err.mid(at + 7).section('\n', 0, 0) : err);
    m_job.clear();
    return false;
  }
  m_log = request.output + "/slurm/logs/" + m_job + ".out";
  m_offset = 0;
  m_state.running = true;
  m_polls = 0;
  const QJsonObject info{{"slurmJob", m_job}, {"log", m_log}, {"program", programPath()},
                         {"arguments", QJsonArray::fromStringList(args)}, {"modelName", request.modelName},
                         {"model", request.model}, {"output", request.output}};
  // In the run folder (on the cluster's storage), and in this user's training folder, where a later window finds it.
  for (const QString& folder : {request.output, trainingFolder() + "/" + request.modelName}) {
    (void)io::createFolders(folder.toStdString(), io::FileAccess::Private);
    QFile meta(folder + "/run.json");
    if (meta.open(QIODevice::WriteOnly | QIODevice::Truncate)) meta.write(QJsonDocument(info).toJson());
  }
  m_timer->start();
  Q_EMIT started();
  return true;
}

bool TrainingRun::adopt(const QString& output, bool wantRunning) {
  if (running()) return false;
  QFile meta(output + "/run.json");
  if (!meta.open(QIODevice::ReadOnly)) return false;
  const QJsonObject info = QJsonDocument::fromJson(meta.readAll()).object();
  const qint64 pid = static_cast<qint64>(info.value("pid").toDouble());
  const QString job = info.value("slurmJob").toString();
  if ((job.isEmpty() ? aliveTraining(pid) : slurmJobQueued(job)) != wantRunning) return false;
  m_request = TrainingRequest{};
  m_request.output = job.isEmpty() ? output : info.value("output").toString();
  m_request.slurm = !job.isEmpty();
  m_request.modelName = info.value("modelName").toString();
  m_request.model = info.value("model").toString();
  m_state = TrainingState{};
  m_state.running = wantRunning;
  m_error.clear();
  m_pending.clear();
  m_offset = 0;
  m_sawEnd = false;
  m_log = job.isEmpty() ? output + "/run.jsonl" : info.value("log").toString();
  m_polls = 0;
  if (wantRunning) {
    if (job.isEmpty()) m_pid = pid;
    else m_job = job;
  }
  return true;
}

bool TrainingRun::attach(const QString& output) {
  if (!adopt(output, true)) return false;
  poll();  // the log so far
  m_timer->start();
  Q_EMIT started();
  return true;
}

bool TrainingRun::replay(const QString& output) {
  if (!adopt(output, false)) return false;
  QFile log(m_log);
  if (!log.open(QIODevice::ReadOnly)) return false;
  {
    // Read, not relived: no progress or warning signal per old line (the caller shows the state once).
    const QSignalBlocker quiet(this);
    for (const QByteArray& line : log.readAll().split('\n'))
      if (line.trimmed().startsWith('{')) handle(line.trimmed());
  }
  m_offset = log.size();
  if (!m_error.isEmpty()) m_state.outcome = m_error;
  else if (m_state.outcome.isEmpty()) m_state.outcome = tr("ended without a result (see %1)").arg(output + "/run.log");
  return true;
}

QString TrainingRun::latestRun() {
  const QDir folder(trainingFolder());
  QString newest;
  QDateTime when;
  for (const QString& name : folder.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
    const QFileInfo meta(folder.filePath(name) + "/run.json");
    if (meta.exists() && (newest.isEmpty() || meta.lastModified() > when)) {
      newest = folder.filePath(name);
      when = meta.lastModified();
    }
  }
  return newest;
}

QStringList TrainingRun::runningRuns() {
  QStringList out;
  const QDir folder(trainingFolder());
  for (const QString& name : folder.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
    QFile meta(folder.filePath(name) + "/run.json");
    if (!meta.open(QIODevice::ReadOnly)) continue;
    const QJsonObject info = QJsonDocument::fromJson(meta.readAll()).object();
    const QString job = info.value("slurmJob").toString();
    if (job.isEmpty() ? aliveTraining(static_cast<qint64>(info.value("pid").toDouble())) : slurmJobQueued(job))
      out << folder.filePath(name);
  }
  return out;
}

void TrainingRun::stop() {
  if (m_pid > 0 && aliveTraining(m_pid)) ::kill(static_cast<pid_t>(m_pid), SIGTERM);
  // The job's tasks get SIGTERM (not the kill that follows a plain scancel): they validate, save and end.
  if (!m_job.isEmpty()) {
    auto r = io::runProcess({"scancel", "--signal=TERM", m_job.toStdString()}, 15);
    if (!r) Q_EMIT warning(QString::fromStdString(r.error().describe()));
    else if (r->exitCode != 0) Q_EMIT warning(tr("scancel: %1").arg(QString::fromStdString(r->err).trimmed()));
  }
}

void TrainingRun::poll() {
  QFile log(m_log);
  if (log.open(QIODevice::ReadOnly) && log.size() > m_offset) {
    log.seek(m_offset);
    const QByteArray fresh = log.readAll();
    m_offset += fresh.size();
    m_pending += fresh;
    for (qsizetype end; (end = m_pending.indexOf('\n')) >= 0;) {
      const QByteArray line = m_pending.left(end).trimmed();
      m_pending.remove(0, end + 1);
      if (line.startsWith('{')) handle(line);
    }
  }
  if (m_pid > 0 && !aliveTraining(m_pid)) ended();
  // A Slurm job: asked of squeue every 5 s (each ask is a round trip to the controller).
  if (!m_job.isEmpty() && ++m_polls % 25 == 0 && !slurmJobQueued(m_job)) ended();
}

void TrainingRun::ended() {
  m_timer->stop();
  // The last lines, written before it ended.
  QFile log(m_log);
  if (log.open(QIODevice::ReadOnly) && log.size() > m_offset) {
    log.seek(m_offset);
    m_pending += log.readAll();
    m_offset = log.size();
    for (const QByteArray& line : m_pending.split('\n'))
      if (line.trimmed().startsWith('{')) handle(line.trimmed());
    m_pending.clear();
  }
  m_pid = 0;
  const bool slurm = !m_job.isEmpty();
  m_job.clear();
  m_state.running = false;
  const bool ok = m_error.isEmpty() && !m_state.outcome.isEmpty();
  if (!ok && m_error.isEmpty()) {
    // No result line: the program's stderr says why (killed, crashed); a Slurm job's is in its log.
    QFile err(slurm ? m_log : m_request.output + "/run.log");
    QString text = err.open(QIODevice::ReadOnly) ? QString::fromUtf8(err.readAll()).trimmed() : QString();
    const qsizetype at = text.lastIndexOf("error: ");
    m_error = at >= 0 ? text.mid(at + 7).section('\n', 0, 0) : tr("delineate-train ended without a result (see %1)").arg(err.fileName());
  }
  if (!ok) m_state.outcome = m_error;
  Q_EMIT finished(ok);
}

void TrainingRun::handle(const QByteArray& line) {
  const QJsonObject e = QJsonDocument::fromJson(line).object();
  const QString event = e.value("event").toString();
  if (event == "start") {
    // A run (or a resumed one) begins: what an earlier run in the same log did after the checkpoint this one starts
    // from is gone (its points are dropped); its error or outcome no longer holds.
    const int from = e.value("startIteration").toInt();
    auto after = [from](const std::pair<int, double>& p) { return p.first > from; };
    m_state.losses.erase(std::remove_if(m_state.losses.begin(), m_state.losses.end(), after), m_state.losses.end());
    m_state.validations.erase(std::remove_if(m_state.validations.begin(), m_state.validations.end(), after),
                              m_state.validations.end());
    m_state.labels.clear();
    m_state.outcome.clear();
    m_error.clear();
    m_state.device = e.value("device").toString();
    m_state.precision = e.value("precision").toString();
    m_state.parameters = static_cast<long long>(e.value("parameters").toDouble());
    m_state.iterations = e.value("iterations").toInt();
    m_state.iteration = e.value("startIteration").toInt();
    for (const QJsonValue& l : e.value("labels").toArray()) {
      const QJsonObject o = l.toObject();
      TrainingState::Label label;
      label.id = o.value("id").toInt();
      label.networkClass = o.contains("class") ? o.value("class").toInt() : o.value("vista3d").toInt();
      label.name = o.value("name").toString();
      m_state.labels.push_back(label);
    }
  } else if (event == "progress") {
    m_state.iteration = e.value("iteration").toInt();
    m_state.iterations = e.value("iterations").toInt();
    m_state.loss = e.value("loss").toDouble();
    m_state.iterationsPerSecond = e.value("iterationsPerSecond").toDouble();
    m_state.etaSeconds = e.value("etaSeconds").toDouble();
    m_state.elapsedSeconds = e.value("elapsedSeconds").toDouble();
    m_state.dataWaitFraction = e.value("dataWaitFraction").toDouble();
    m_state.lastCheckpoint = e.value("lastCheckpoint").toString();
    m_state.residentBytes = e.value("residentBytes").toDouble();
    m_state.deviceUsedBytes = e.value("deviceUsedBytes").toDouble();
    m_state.losses.emplace_back(m_state.iteration, m_state.loss);
    if (e.contains("validation")) {
      const QJsonObject v = e.value("validation").toObject();
      const double dice = v.value("meanDice").toDouble();
      m_state.validations.emplace_back(v.value("iteration").toInt(m_state.iteration), dice);
      m_state.bestDice = std::max(m_state.bestDice, dice);
      m_state.perClass.clear();
      // Keyed by the network's class: reported by the cases' label id.
      auto idOf = [this](int networkClass) {
        for (const auto& l : m_state.labels)
          if (l.networkClass == networkClass) return l.id;
        return networkClass;
      };
      const QJsonObject classes = v.value("perClass").toObject();
      for (auto it = classes.begin(); it != classes.end(); ++it)
        m_state.perClass.emplace_back(idOf(it.key().toInt()), it.value().toDouble());
      std::sort(m_state.perClass.begin(), m_state.perClass.end());  // by id (the keys came sorted as text)
    }
    Q_EMIT progressed();
  } else if (event == "warning") {
    Q_EMIT warning(e.value("message").toString());
  } else if (event == "done") {
    m_state.bestDice = e.value("bestDice").toDouble(m_state.bestDice);
    m_state.outcome = e.value("cancelled").toBool() ? "cancelled" : e.value("earlyStopped").toBool() ? "stopped early" : "done";
    m_state.iteration = e.value("iterations").toInt(m_state.iteration);
  } else if (event == "error") {
    m_error = e.value("subject").toString() + ": " + e.value("reason").toString();
  }
}

}  // namespace delineate::app::gui
