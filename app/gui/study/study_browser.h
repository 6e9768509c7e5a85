#pragma once
// File > Open from Share: the study browser (issue 24, item 6). Studies come from the share's catalogue through the
// local index (io/studies/study_index.h), so searching never waits on the share: the search field, modality, label
// status and a date range filter as you type, a column header sorts (by the index, so all matches sort, not only
// those shown). The index catches up with the share in the background, at once and every few seconds while the
// dialog is open. Choosing a study reads its folder on the share (in the background): its series and every label
// revision with its review state, and who is editing it right now (the live lease). Open hands the choice to the
// window, which fetches the series (verified, with progress and Cancel) and opens it with the chosen revision.

#include <QDialog>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace delineate::app::gui {

struct ShareStudyChoice {
  QString root, study, series;
  QString labelSet;  // empty: the image alone
  int revision = 0;  // 0 with a label set: its newest revision
  QString rtStructSeries;  // instead of a label set: an RT Structure Set series of the study, onto the image
};

class StudyBrowserDialog : public QDialog {
  Q_OBJECT

 public:
  explicit StudyBrowserDialog(QWidget* parent = nullptr);
  ~StudyBrowserDialog() override;

  // Browses the share at `root`: false, with the reason in error(), when it is not a share store.
  bool setRoot(const QString& root);
  QString root() const;
  std::optional<ShareStudyChoice> choice() const;
  QString error() const;

  // The widgets, for tests that drive the dialog as a user would.
  QLineEdit* searchField() const;
  QComboBox* modalityBox() const;
  QComboBox* statusBox() const;
  QLineEdit* dateFromField() const;
  QLineEdit* dateToField() const;
  QTableWidget* table() const;
  QComboBox* seriesBox() const;
  QComboBox* revisionBox() const;
  QLabel* studyDetail() const;
  QPushButton* openButton() const;
  int shownRows() const;
  // The studies chosen in the table (several with Ctrl or Shift), sorted.
  QStringList selectedStudies() const;
  // "Make Dataset...": the chosen studies' revisions of `labelSet` (the newest approved one in each, or with
  // approvedOnly false the newest whatever its review) saved on a worker as the next version of dataset `name`, split
  // by a keyed hash of each study (validationPercent to validation, the rest to training); datasetSaved or
  // datasetFailed follows, and datasetMessage() says what was saved and which studies were skipped. False when it
  // cannot start (nothing chosen, no name or label set, a save running).
  // `studies`: these instead of the chosen ones. The dialog does not close while the save runs.
  bool makeDataset(const QString& name, const QString& labelSet, bool approvedOnly, int validationPercent,
                   QStringList studies = {});
  void done(int result) override;
  QPushButton* makeDatasetButton() const;
  QString datasetMessage() const;
  int matchingStudies() const;  // all matches, shown or not

 Q_SIGNALS:
  void refreshed();     // the index caught up with the share and the table was filled again
  void studyDetailsRead();  // the chosen study's series and revisions are in the boxes
  void datasetSaved(const QString& name, int revision);
  void datasetFailed(const QString& message);

 private:
  struct Impl;
  void startRefresh();
  void fillTable();
  void studyChosen();
  void sortBy(int column);
  void askDataset();
  std::unique_ptr<Impl> d;
};

}  // namespace delineate::app::gui
