#pragma once
// File > Import into Share (issue 24, item 2): DICOM folders and volume files copied into a share store as studies
// (io/studies/study_import.h: verified, parallel, resumable; optional de-identification), in the background with
// progress and Cancel. The dialog asks what to import, into which share and, optionally, which study name and the
// de-identification key; the result (series imported, files copied, what was skipped) is told when it ends.

#include <QDialog>
#include <QObject>
#include <QString>
#include <QStringList>

class QCheckBox;
class QLineEdit;

namespace delineate::app::gui {

class Workbench;

struct ShareImportRequest {
  QStringList inputs;  // folders or files
  QString root;
  QString study;       // empty: named from the files
  bool deidentify = false;
  QString keyFile;
};

class ShareImportDialog : public QDialog {
  Q_OBJECT

 public:
  explicit ShareImportDialog(QWidget* parent = nullptr);
  ShareImportRequest request() const;
  QLineEdit* inputsField() const { return m_inputs; }
  QLineEdit* rootField() const { return m_root; }
  QLineEdit* studyField() const { return m_study; }
  QCheckBox* deidentifyBox() const { return m_deidentify; }
  QLineEdit* keyField() const { return m_key; }

 private:
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

 Q_SIGNALS:
  // Ends with what was done ("2 series imported ...") or why not; `ok` false for errors and cancellation.
  void finished(bool ok, const QString& summary);

 private:
  Workbench& m_bench;
  bool m_running = false;
};

}  // namespace delineate::app::gui
