#pragma once
// File > Query/Retrieve from PACS (issue 42, item 6): the PACS's studies beside the share's. A server from the
// preferences (DIMSE or DICOMweb), the search fields (patient name and ID, accession, study dates, modality,
// description; wildcards * and ?), the matching studies, the chosen study's series; Retrieve brings the chosen series
// (all of the study's when none is chosen) into the share's catalogue through the verified import, or into the local
// cache for a look without importing, in the background with progress and Cancel (resumable: what arrived stays and
// is not asked for again). Open hands the retrieved series to the window. The dialog is not modal: the window goes on
// working while a retrieve runs.

#include <QDialog>
#include <QList>
#include <QString>

#include <memory>
#include <vector>

#include "app/gui/pacs/pacs_servers.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QTableWidget;

namespace delineate::app::gui {

class JobProgress;
class Workbench;

// What Open hands the window: a folder of the local cache, or a study imported into a share.
struct PacsOpenRequest {
  QString folder;               // a look from the cache (a DICOM folder of one series)
  QString root, study, series;  // a share study (root not empty)
};

class PacsBrowserDialog : public QDialog {
  Q_OBJECT

 public:
  explicit PacsBrowserDialog(Workbench& bench, QWidget* parent = nullptr);
  ~PacsBrowserDialog() override;

  // The servers to choose from (the preferences'); the chosen one is kept by name.
  void setServers(const QList<PacsServer>& servers);
  // Starts the study-level query with the fields' keys on a worker; searched follows. False when it cannot start (no
  // server, one running, the server's secret missing: said in the state line).
  bool search();
  // Starts the chosen series' (or the whole study's) retrieve; retrieved follows. False when it cannot start.
  bool retrieve();
  // Cancels the query or retrieve running (C-CANCEL, or the HTTP transfer stopped; what arrived stays).
  void cancel();
  // Asks the window to open the retrieved series (openRequested); false when nothing retrieved can be opened.
  bool openRetrieved();
  bool running() const;

  // The widgets, for tests that drive the dialog as a user would.
  QComboBox* serverBox() const;
  QLineEdit* patientNameField() const;
  QLineEdit* patientIdField() const;
  QLineEdit* accessionField() const;
  QLineEdit* dateFromField() const;
  QLineEdit* dateToField() const;
  QComboBox* modalityBox() const;
  QLineEdit* descriptionField() const;
  QPushButton* searchButton() const;
  QTableWidget* studyTable() const;
  QTableWidget* seriesTable() const;
  QCheckBox* importBox() const;
  QLineEdit* shareField() const;
  QPushButton* retrieveButton() const;
  QPushButton* cancelButton() const;
  QPushButton* openButton() const;
  QProgressBar* progressBar() const;
  QLabel* stateLabel() const;

 Q_SIGNALS:
  void searched(bool ok);        // the studies are in the table (ok) or the state line says why not
  void seriesListed(bool ok);    // the chosen study's series are in the series table
  void retrieved(bool ok);       // the state line says what arrived (and was imported), or why not
  void openRequested(const delineate::app::gui::PacsOpenRequest& request);

 private:
  struct Impl;
  void studyChosen();
  void listSeries();
  void showState(const QString& text, bool error);
  void setRunning(bool on);
  void pollProgress();
  // A search or series listing ended: false when `job` is no longer the one running (its answer is dropped).
  bool endQuery(const std::shared_ptr<JobProgress>& job);
  std::unique_ptr<Impl> d;
};

}  // namespace delineate::app::gui
