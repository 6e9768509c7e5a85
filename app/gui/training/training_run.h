#pragma once
// A training run of the window (issue 26): delineate-train in a child process, so that the window never freezes and a
// crash or a GPU out of memory never takes the annotation session with it. Its --json lines are read into the run's
// state (loss and validation Dice over the iterations, the last validation's per-class Dice, speed, ETA, device,
// the last checkpoint) and announced by signals. Stop asks the program to save a checkpoint and end (SIGTERM); Resume
// starts it again with --resume from its newest checkpoint. A run submitted to Slurm is followed the same way: through
// its log in the run folder (which the nodes write on shared storage), squeue for whether it still runs, and scancel
// --signal=TERM for Stop; it goes on when the window closes (it runs on the cluster) and a later window attaches to it.

#include <QObject>
#include <QString>
#include <QStringList>

class QTimer;

#include <utility>
#include <vector>

namespace delineate::app::gui {

struct TrainingRequest {
  QString cases;          // a cases.json (a JSON list of image/label files) ...
  QString share, dataset; // ... or a dataset of this share (fetched by the program)
  QString output;         // the run's folder (checkpoints, fetched data)
  QString model = "segresnetds";  // or "vista3d"
  QString checkpoint;     // VISTA-3D: the base
  QString modelName;      // the share's checkpoints/<name>/ (with `share`)
  QString labels;         // a label table (names)
  QString author;         // who the published checkpoints name (the preferences' author name)
  QString device = "cpu";
  int iterations = 1000;
  int validationInterval = 100;
  QString timeBudget;     // "55m", "1h30m", "600": the iterations that fit it (empty: `iterations` decide)
  QStringList extra;      // further delineate-train flags (the "advanced" settings)
  // Submitted to Slurm (delineate-train --slurm) instead of run here: `output` must then be a folder every node
  // mounts; `slurmOptions` are delineate-train's submission flags (--nodes, --gpus-per-node, --time, --partition...).
  bool slurm = false;
  QStringList slurmOptions;
};

struct TrainingState {
  bool running = false;
  int iteration = 0, iterations = 0;
  double loss = 0, iterationsPerSecond = 0, etaSeconds = 0, dataWaitFraction = 0, elapsedSeconds = 0;
  double residentBytes = 0;    // the training process's memory (RSS)
  double deviceUsedBytes = 0;  // CUDA: the device's memory in use (all processes); 0 on the CPU
  QString device, precision, lastCheckpoint;
  long long parameters = 0;
  std::vector<std::pair<int, double>> losses;       // (iteration, mean loss since the previous report)
  std::vector<std::pair<int, double>> validations;  // (iteration, mean Dice)
  struct Label {
    int networkClass = 0;  // the validation's key: SegResNetDS's channel, VISTA-3D's id
    int id = 0;            // the label id in the cases
    QString name;
  };
  std::vector<Label> labels;                        // from the program's start line
  std::vector<std::pair<int, double>> perClass;     // the last validation: (label id, Dice)
  double bestDice = -1;
  QString outcome;  // "", "done", "stopped early", "cancelled", or the error
};

class TrainingRun : public QObject {
  Q_OBJECT

 public:
  explicit TrainingRun(QObject* parent = nullptr);
  ~TrainingRun() override;

  // Where delineate-train is: $DELINEATE_TRAIN, beside this program, the build tree's.
  static QString programPath();
  static QStringList arguments(const TrainingRequest& request, bool resume);

  // Starts the program in a process of its own (it outlives the window when asked to: keepOnClose), its JSON lines
  // going to OUTPUT/run.jsonl, which this object follows, and OUTPUT/run.json naming the process and the request
  // (false: one is running, or it cannot start: error() says why).
  bool start(const TrainingRequest& request, bool resume = false);
  // Follows a run started earlier (by this or another window) from its folder: true when its process is still running
  // (its log so far is read first), false when it is not (nothing is attached).
  bool attach(const QString& output);
  // Reads a run that has ended (from this or an earlier window) from its folder: its log's progress, validations and
  // outcome in state(), nothing followed; false when the folder holds no run or its process still runs (attach it).
  bool replay(const QString& output);
  // The runs of this user's training folder whose process is still running.
  static QStringList runningRuns();
  // The run folder started most recently (by its run.json), running or not; "" when there is none.
  static QString latestRun();
  // Asks it to save and end (SIGTERM); finished() follows.
  void stop();
  // Whether destroying this object leaves the run going (default: it is stopped with its checkpoint saved).
  void setKeepOnClose(bool keep) { m_keepOnClose = keep; }
  bool running() const { return m_pid > 0 || !m_job.isEmpty(); }
  QString slurmJob() const { return m_job; }  // the Slurm job followed ("" for a local run)
  const TrainingState& state() const { return m_state; }
  const TrainingRequest& request() const { return m_request; }
  QString error() const { return m_error; }

 Q_SIGNALS:
  void started();
  void progressed();  // state() has a new iteration (and perhaps a validation)
  void warning(const QString& message);
  void finished(bool ok);  // ok: done, stopped early or cancelled with its checkpoint; else error() says why

 private:
  // Takes the run of `output` (its run.json) as this object's when its process is (wantRunning) or is not running:
  // the request and a fresh state, its log not read yet.
  bool adopt(const QString& output, bool wantRunning);
  bool submit(const TrainingRequest& request);
  void poll();
  void handle(const QByteArray& line);
  void ended();

  TrainingRequest m_request;
  TrainingState m_state;
  QString m_error;
  QString m_log;         // OUTPUT/run.jsonl
  qint64 m_offset = 0;   // bytes of it read
  QByteArray m_pending;  // a line not complete yet
  qint64 m_pid = 0;
  QString m_job;          // a Slurm run's job id: followed through its log and squeue
  int m_polls = 0;
  bool m_keepOnClose = false;
  bool m_sawEnd = false;  // a done or error line
  QTimer* m_timer = nullptr;
};

}  // namespace delineate::app::gui
