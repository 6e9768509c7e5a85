#pragma once
// The Training dock (issue 26): a dataset of the share (or a case list file), a base model (a new atlas network, or
// VISTA-3D fine-tuned from a checkpoint), settings with defaults delineate-train chooses from the data (patch, width,
// spacing) and the few a person sets (iterations, validation interval, device, the model's name); Start, Stop,
// Resume. The run is delineate-train in a child process (TrainingRun); the dock plots its loss and validation Dice
// over the iterations (Qt Charts), shows the last validation's Dice per structure with the label colours, speed, ETA,
// device, memory and the last checkpoint. A finished run's checkpoints are on the share's checkpoints/<name>/, which the
// AI panel's model chooser and the model registry list. A new window follows a run still going, or shows the last one.
// "Next case" (active learning): the model ranks the share's studies that have no approved revision of the dataset's
// label set by its uncertainty (delineate-train --rank, another child process), lists them and opens the most
// uncertain one; double-clicking the list opens another.

#include <QWidget>

#include <memory>

class QChart;
class QComboBox;
class QLabel;
class QLineEdit;
class QLineSeries;
class QPushButton;
class QSpinBox;
class QProcess;
class QTableWidget;
class QValueAxis;

namespace delineate::app::gui {

class TrainingRun;
class Workbench;

class TrainingPanel : public QWidget {
  Q_OBJECT

 public:
  explicit TrainingPanel(Workbench& bench, QWidget* parent = nullptr);
  ~TrainingPanel() override;

  TrainingRun& run() { return *m_run; }
  // Lists the share's datasets (share/root) on a worker; datasetsListed() follows.
  void refreshDatasets();
  // Starts (or, with resume, continues) a run from the dock's settings; false when it cannot (said in the status).
  bool startRun(bool resume = false);
  void stopRun();
  // Ranks the share's unlabelled studies by the dock's model (its name's newest revision on the share); ranked()
  // follows, then openStudyRequested for the first. False when it cannot start (said in the status).
  bool rankNextCase();
  bool ranking() const { return m_ranker != nullptr; }
  // The last ranking, most uncertain first.
  struct RankedCase {
    QString study, series, labels;
    double score = 0;
  };
  const std::vector<RankedCase>& rankedCases() const { return m_ranked; }
  void retranslate();

 Q_SIGNALS:
  void datasetsListed();
  void runFinished(bool ok);  // and its checkpoints published, when it had a share and a name
  void ranked(bool ok);
  void registryRequested();
  // Open this study of the share with the newest revision of `labelSet` (if it has one).
  void openStudyRequested(const QString& root, const QString& study, const QString& series, const QString& labelSet);

 private:
  void updateState();
  void updateDeviceHint();
  void showProgress();
  void rankerOutput();
  void rankerEnded();
  void openRanked(int row);
  static QString outcomeText(const QString& outcome);  // done, cancelled, stopped early: for people

  Workbench& m_bench;
  std::unique_ptr<TrainingRun> m_run;
  QLabel* m_sourceLabel = nullptr;
  QComboBox* m_dataset = nullptr;  // "train-dataset": "" (the case list file below), then the share's datasets
  QLineEdit* m_cases = nullptr;    // "train-cases"
  QLabel* m_modelLabel = nullptr;
  QComboBox* m_model = nullptr;    // "train-model": segresnetds, vista3d
  QLineEdit* m_checkpoint = nullptr;  // "train-checkpoint" (VISTA-3D's base)
  QLabel* m_nameLabel = nullptr;
  QLineEdit* m_name = nullptr;     // "train-name"
  QLineEdit* m_labels = nullptr;   // "train-labels": a label table (names)
  QLabel* m_iterationsLabel = nullptr;
  QSpinBox* m_iterations = nullptr;  // "train-iterations"
  QLabel* m_validationLabel = nullptr;
  QSpinBox* m_validation = nullptr;  // "train-validation"
  QLabel* m_deviceLabel = nullptr;
  QComboBox* m_device = nullptr;   // "train-device": the CPU, or CUDA (the default where a GPU is seen)
  QLabel* m_deviceHint = nullptr;  // "train-device-hint": what the device's defaults are and why
  QLabel* m_otherDeviceHint = nullptr;  // the other device's, hidden, keeping the place as high as the longer one
  QLabel* m_budgetLabel = nullptr;
  QLineEdit* m_budget = nullptr;    // "train-budget": a time budget ("55m"; empty: the iterations decide)
  QLabel* m_whereLabel = nullptr;
  QComboBox* m_where = nullptr;     // "train-where": this computer, or a Slurm cluster
  QLabel* m_clusterFolderLabel = nullptr;
  QLineEdit* m_clusterFolder = nullptr;  // "train-cluster-folder": where the run's folder goes (every node mounts it)
  QLabel* m_slurmLabel = nullptr;
  QLineEdit* m_slurm = nullptr;     // "train-slurm": delineate-train's submission options (--gpus-per-node 1 ...)
  QLabel* m_advancedLabel = nullptr;
  QLineEdit* m_advanced = nullptr;  // "train-advanced": further delineate-train options (--patch, --init-filters, ...)
  QPushButton* m_start = nullptr;
  QPushButton* m_stop = nullptr;
  QPushButton* m_resume = nullptr;
  QLabel* m_status = nullptr;      // "train-status"
  bool m_stopping = false;         // Stop pressed, the program not ended yet (it validates and saves first)
  QChart* m_lossChart = nullptr;
  QLineSeries* m_loss = nullptr;
  QValueAxis* m_lossX = nullptr;
  QValueAxis* m_lossY = nullptr;
  QChart* m_diceChart = nullptr;
  QLineSeries* m_dice = nullptr;
  QValueAxis* m_diceX = nullptr;
  QValueAxis* m_diceY = nullptr;
  QTableWidget* m_classes = nullptr;  // "train-classes": colour and id, name, Dice
  QPushButton* m_models = nullptr;    // "train-models": the model registry
  QPushButton* m_next = nullptr;      // "train-next-case"
  QTableWidget* m_ranking = nullptr;  // "train-ranking": study, uncertainty, labels
  QProcess* m_ranker = nullptr;
  QByteArray m_rankerPending;
  QString m_rankerError, m_rankRoot, m_rankLabelSet;
  std::vector<RankedCase> m_ranked;
};

}  // namespace delineate::app::gui
