#pragma once
// File > Import into Share (issue 24, item 2): DICOM folders and volume files copied into a share store as studies
// (io/studies/study_import.h: verified, parallel, resumable; optional de-identification), in the background with
// progress and Cancel. The dialog asks what to import, into which share and, optionally, which study name and the
// de-identification key; the result (series imported, files copied, what was skipped) is told when it ends.
// Issue 41: the dialog stays open while the import runs and after it fails (the paths kept, the error shown in it),
// closing only when the import succeeded; it and the share chooser of Open from Share can make a new share.

#include <QDialog>
#include <QObject>
#include <QString>
#include <QStringList>

#include <memory>
#include <string>
#include <vector>

#include "io/studies/study_import.h"

class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace delineate::app::gui {

class JobProgress;
class ShareImporter;
class Workbench;

// Makes `folder` (created when missing) a new share store, as Save to Share As's Create Share does. What became of it
// is in `text` ("Created a share in ...", "... is a share already", or why not, naming the folder).
struct NewShareOutcome {
  bool ok = false;  // a share is there now (made, or one already)
  QString text;
};
NewShareOutcome createShareIn(const QString& folder);

// File > Open from Share and Open Labels from Share when no share is known yet (or the last one is gone): the folder
// typed or browsed for, with Create Share to make a new one there (a folder becomes a share only when asked: an empty
// folder may be a share that is not mounted). Open is refused, in the dialog, for a folder that is no share. Returns
// the share's folder, empty when cancelled (or with dialogs off).
QString chooseShareFolder(QWidget* parent, const QString& start);

struct ShareImportRequest {
  QStringList inputs;  // folders or files
  QString root;
  QString study;       // empty: named from the files
  bool deidentify = false;
  QString keyFile;
};

// What an import into a share did: the report (or why not) and, when an audit record could not be written, why.
struct ShareImportOutcome {
  core::Result<io::StudyImportReport> report;
  std::string auditWarning;
};
// Imports `inputs` into the share at `root` on the calling thread (run it on a worker: it reads the share): the share
// opened, the de-identification key read when `keyFile` is named (refused on the share), the verified import, then
// an "import" audit record per series saying it came "from <source>" ("the window", "PACS ORTHANC@host:4242").
ShareImportOutcome importIntoShareNow(const std::string& root, const std::vector<std::string>& inputs,
                                      io::StudyImportOptions options, const std::string& keyFile,
                                      const std::string& source);

class ShareImportDialog : public QDialog {
  Q_OBJECT

 public:
  // Import starts `importer` with the request; the dialog closes when it succeeded.
  explicit ShareImportDialog(ShareImporter& importer, QWidget* parent = nullptr);
  ShareImportRequest request() const;
  void reject() override;
  QLineEdit* inputsField() const { return m_inputs; }
  QLineEdit* rootField() const { return m_root; }
  QLineEdit* studyField() const { return m_study; }
  QCheckBox* deidentifyBox() const { return m_deidentify; }
  QLineEdit* keyField() const { return m_key; }
  QLabel* stateLabel() const { return m_state; }
  QPushButton* importButton() const { return m_import; }
  QPushButton* createShareButton() const { return m_create; }

 private:
  void startImport();
  ShareImporter& m_importer;
  QLabel* m_state = nullptr;  // what Create Share did, the import running, or why it failed
  QPushButton* m_import = nullptr;
  QPushButton* m_create = nullptr;
  QLineEdit* m_inputs = nullptr;  // several paths separated by ';'
  QLineEdit* m_root = nullptr;
  QLineEdit* m_study = nullptr;
  QCheckBox* m_deidentify = nullptr;
  QLineEdit* m_key = nullptr;
};

class ShareImporter : public QObject {
  Q_OBJECT

 public:
  ShareImporter(Workbench& bench, QObject* parent = nullptr);
  // Starts the import in the background; false (and said) when the request cannot start (no input, no share named, no
  // key file). What needs the share (it is one, the key is not on it) is checked on the worker and ends in finished.
  bool start(const ShareImportRequest& request);
  bool running() const { return m_running; }
  // Cancels the running import (what was copied stays; importing again finishes it).
  void cancel();

 Q_SIGNALS:
  // Ends with what was done ("2 series imported ...") or why not; `ok` false for errors and cancellation.
  void finished(bool ok, const QString& summary);

 private:
  Workbench& m_bench;
  bool m_running = false;
  std::weak_ptr<JobProgress> m_job;
};

}  // namespace delineate::app::gui
