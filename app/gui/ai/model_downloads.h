#pragma once
// AI > Get Models (issue 44, item 6): the known public models (licence, size, whether a hash is published, where
// from), this machine's models, a download by name or URL (the licence shown and accepted first; progress and
// Cancel; a broken connection or an earlier interrupted download resumed; the SHA-256 checked before it counts), a
// file the user has registered instead, and "Use for VISTA-3D", which makes model:NAME the preferences' checkpoint.
// Downloads run on the window's workers (io/models/model_store.h).

#include <QDialog>
#include <QString>

#include <memory>

class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QTableWidget;

namespace delineate::app::gui {

class Workbench;

class ModelDownloadsDialog : public QDialog {
  Q_OBJECT

 public:
  explicit ModelDownloadsDialog(Workbench& bench, QWidget* parent = nullptr);
  ~ModelDownloadsDialog() override;

  void refresh();
  // A known model's name or an http(s) URL, with the name to keep it under and its SHA-256 (a known model's by
  // default). With dialogs enabled, a known model's licence is shown and must be accepted. False when refused or busy.
  bool download(const QString& nameOrUrl, const QString& name = {}, const QString& sha256 = {});
  // Hashes and records `file` under `name` on the workers (finished follows); false while busy.
  bool registerFile(const QString& file, const QString& name);
  // model:NAME becomes the VISTA-3D checkpoint of the preferences (useRequested follows).
  void use(const QString& name);
  void cancel();

  QTableWidget* known() const;   // "models-known"
  QTableWidget* cached() const;  // "models-cached"
  QLabel* status() const;        // "models-status": what happened last, or the error

 Q_SIGNALS:
  void finished(bool ok, QString message);  // a download or registration
  void useRequested(QString reference);      // "model:NAME"

 private:
  struct Impl;
  void fill();
  void setBusy(bool busy);
  void finish(bool ok, const QString& message);  // a download or registration ended
  std::unique_ptr<Impl> d;
};

}  // namespace delineate::app::gui
