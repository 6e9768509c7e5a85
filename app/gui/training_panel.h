#pragma once
// The Training dock (issue 26): a dataset of the share (or a case list file), a base model (a new atlas network, or
// VISTA-3D fine-tuned from a checkpoint), settings with defaults delineate-train chooses from the data (patch, width,
// spacing) and the few a person sets (iterations, validation interval, device, the model's name); Start, Stop,
// Resume. The run is delineate-train in a child process (TrainingRun); the dock plots its loss and validation Dice
// over the iterations (Qt Charts), shows the last validation's Dice per structure with the label colours, speed, ETA,
// device and the last checkpoint. A finished run's checkpoints are on the share's checkpoints/<name>/, which the AI
// panel's model chooser lists.

#include <QWidget>

#include <memory>

class QChart;
class QComboBox;
class QLabel;
class QLineEdit;
class QLineSeries;
class QPushButton;
class QSpinBox;
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
  void retranslate();

 Q_SIGNALS:
  void datasetsListed();
  void runFinished(bool ok);  // and its checkpoints published, when it had a share and a name

 private:
  void updateState();
  void showProgress();

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
  QComboBox* m_device = nullptr;   // "train-device"
  QLabel* m_advancedLabel = nullptr;
  QLineEdit* m_advanced = nullptr;  // "train-advanced": further delineate-train options (--patch, --init-filters, ...)
  QPushButton* m_start = nullptr;
  QPushButton* m_stop = nullptr;
  QPushButton* m_resume = nullptr;
  QLabel* m_status = nullptr;      // "train-status"
  QChart* m_lossChart = nullptr;
  QLineSeries* m_loss = nullptr;
  QValueAxis* m_lossX = nullptr;
  QValueAxis* m_lossY = nullptr;
  QChart* m_diceChart = nullptr;
  QLineSeries* m_dice = nullptr;
  QValueAxis* m_diceX = nullptr;
  QValueAxis* m_diceY = nullptr;
  QTableWidget* m_classes = nullptr;  // "train-classes": colour and id, name, Dice
};

}  // namespace delineate::app::gui
