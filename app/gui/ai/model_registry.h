#pragma once
// AI > Model Registry (issue 26, item 4): the share's trained models, every checkpoint revision with what its sidecar
// says: architecture, classes, the best validation Dice, the dataset (and version) it learnt from, its cases, device,
// iteration, who saved it and when, and whether a run is training the model now (its lease). Choosing a row shows its
// Dice per structure with the label colours; choosing two compares them structure by structure (the second minus the
// first, better in green, worse in red). "Use as AI engine" hands the chosen revision to the AI panel, which builds it
// without a restart. The listing runs on a worker: a slow share never freezes the window.

#include <QDialog>
#include <QString>

#include <memory>

class QLabel;
class QPushButton;
class QTableWidget;

namespace delineate::app::gui {

class Workbench;

class ModelRegistryDialog : public QDialog {
  Q_OBJECT

 public:
  explicit ModelRegistryDialog(Workbench& bench, QWidget* parent = nullptr);
  ~ModelRegistryDialog() override;

  // Lists the share (share/root) again; listed() follows.
  void refresh();
  QTableWidget* models() const;   // "registry-models": one row per revision
  QTableWidget* compare() const;  // "registry-compare": Dice per structure of the chosen revision(s)
  QPushButton* useButton() const;
  QLabel* summary() const;        // "registry-summary": what the choice is, or why nothing is listed
  // share:ROOT#MODEL@REV of row `row` ("" out of range).
  QString reference(int row) const;
  void retranslate();

 Q_SIGNALS:
  void listed();
  void modelChosen(const QString& reference);  // "Use as AI engine"

 private:
  struct Impl;
  void fill();
  void showChoice();
  std::unique_ptr<Impl> d;
};

}  // namespace delineate::app::gui
