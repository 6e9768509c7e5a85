#include "app/gui/training_run.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcessEnvironment>

#include <algorithm>

namespace delineate::app::gui {

TrainingRun::TrainingRun(QObject* parent) : QObject(parent) {
  connect(&m_process, &QProcess::readyReadStandardOutput, this, &TrainingRun::readLines);
  connect(&m_process, &QProcess::readyReadStandardError, this, [this] { m_stderr += m_process.readAllStandardError(); });
  connect(&m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
    if (e != QProcess::FailedToStart) return;
    m_error = tr("cannot start %1: %2").arg(programPath(), m_process.errorString());
    m_state.running = false;
    m_state.outcome = m_error;
    Q_EMIT finished(false);
  });
  connect(&m_process, QOverload<int, QProcess::ExitStatus>::of(&QProcess::finished), this,
          [this](int code, QProcess::ExitStatus status) {
            readLines();
            m_state.running = false;
            const bool ok = status == QProcess::NormalExit && code == 0;
            if (!ok && m_error.isEmpty()) {
              // The program names the case or setting on stderr ("error: <subject>: <reason>").
              const QString text = QString::fromUtf8(m_stderr).trimmed();
              const qsizetype at = text.lastIndexOf("error: ");
              m_error = status == QProcess::CrashExit ? tr("delineate-train crashed")
                        : at >= 0                     ? text.mid(at + 7).section('\n', 0, 0)
                                                      : tr("delineate-train exited with %1").arg(code);
            }
            if (!ok) m_state.outcome = m_error;
            Q_EMIT finished(ok);
          });
}

TrainingRun::~TrainingRun() {
  if (m_process.state() != QProcess::NotRunning) {
    // A run the window does not keep is stopped with its checkpoint saved (the window asks first).
    m_process.terminate();
    if (!m_process.waitForFinished(30000)) m_process.kill();
  }
}

QString TrainingRun::programPath() {
  const QString env = qEnvironmentVariable("DELINEATE_TRAIN");
  if (!env.isEmpty()) return env;
  const QString dir = QCoreApplication::applicationDirPath();
  for (const QString& candidate : {dir + "/delineate-train", dir + "/../train/delineate-train"})
    if (QFileInfo(candidate).isExecutable()) return QFileInfo(candidate).canonicalFilePath();
#ifdef DELINEATE_TRAIN_BUILD_PATH
  if (QFileInfo(DELINEATE_TRAIN_BUILD_PATH).isExecutable()) return DELINEATE_TRAIN_BUILD_PATH;
#endif
  return "delineate-train";  // from PATH
}

QStringList TrainingRun::arguments(const TrainingRequest& r, bool resume) {
  QStringList a{"--json", "--out", r.output, "--model", r.model, "--device", r.device, "--iterations",
                QString::number(r.iterations), "--validation-interval", QString::number(r.validationInterval)};
  if (!r.cases.isEmpty()) a << "--cases" << r.cases;
  if (!r.share.isEmpty()) a << "--share" << r.share;
  if (!r.dataset.isEmpty()) a << "--dataset" << r.dataset;
  if (!r.modelName.isEmpty()) a << "--model-name" << r.modelName;
  if (!r.checkpoint.isEmpty()) a << "--checkpoint" << r.checkpoint;
  if (!r.labels.isEmpty()) a << "--labels" << r.labels;
  a << r.extra;
  if (resume) a << "--resume";
  return a;
}

bool TrainingRun::start(const TrainingRequest& request, bool resume) {
  if (running()) return false;
  m_request = request;
  m_state = TrainingState{};
  m_state.running = true;
  m_error.clear();
  m_pending.clear();
  m_stderr.clear();
  m_process.setProgram(programPath());
  m_process.setArguments(arguments(request, resume));
  m_process.start();
  if (!m_process.waitForStarted(10000)) {
    m_state.running = false;
    if (m_error.isEmpty()) m_error = tr("cannot start %1: %2").arg(programPath(), m_process.errorString());
    return false;
  }
  Q_EMIT started();
  return true;
}

void TrainingRun::stop() {
  if (running()) m_process.terminate();
}

void TrainingRun::readLines() {
  m_pending += m_process.readAllStandardOutput();
  for (qsizetype end; (end = m_pending.indexOf('\n')) >= 0;) {
    const QByteArray line = m_pending.left(end).trimmed();
    m_pending.remove(0, end + 1);
    if (line.startsWith('{')) handle(line);
  }
}

void TrainingRun::handle(const QByteArray& line) {
  const QJsonObject e = QJsonDocument::fromJson(line).object();
  const QString event = e.value("event").toString();
  if (event == "start") {
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
