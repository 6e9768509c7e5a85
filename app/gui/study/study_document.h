#pragma once
// The open study as one document the window and its docks share: the annotation session (image, labels, table,
// history, dirty state), where it came from (a file, a DICOM series, a share revision), label visibility and the
// voxel counts kept from each edit. Every change goes through here and is announced with a signal, so a view or a
// dock observes the study instead of asking the window, and a new dock adds a file rather than methods on the window.

#include <QObject>
#include <QString>

#include <map>
#include <memory>
#include <optional>
#include <set>

#include "core/annotation_session.h"
#include "io/dicom/dicom.h"

namespace delineate::app::gui {

// A label set on a share: where saves of the open labels go.
struct ShareTarget {
  QString root;
  QString study;
  QString labelSet;
  int baseRevision = 0;  // the revision the labels in the window came from; 0: none yet
  QString series;        // the study's series the open image is (opened from the share); "" when not known
  bool valid() const { return !root.isEmpty() && !study.isEmpty() && !labelSet.isEmpty(); }
  bool sameLabelSet(const ShareTarget& o) const { return root == o.root && study == o.study && labelSet == o.labelSet; }
};

class StudyDocument : public QObject {
  Q_OBJECT

 public:
  using Counts = std::map<core::Label, std::uint64_t>;

  explicit StudyDocument(QObject* parent = nullptr);

  bool hasStudy() const { return m_session.has_value(); }
  const core::AnnotationSession* session() const { return m_session ? &*m_session : nullptr; }
  // For editing tools: after committing an edit (or undo/redo) call labelsEdited, so every observer follows.
  core::AnnotationSession* editableSession() { return m_session ? &*m_session : nullptr; }

  // A stroke in progress is rolled back (before asking to save, before closing).
  void interruptEdits() { Q_EMIT aboutToChange(); }
  // A new study replaces the open one (aboutToChange, aboutToReplaceStudy, then studyReplaced). `source`: the file or "folder #series"
  // it came from; `dicom`: the series, for studies opened from DICOM (SEG export references it).
  void setStudy(core::AnnotationSession session, const QString& source,
                std::optional<io::DicomSeries> dicom = std::nullopt);
  // The labels' voxels replaced as one undo step named `stepName` (a label map file, recovered edits). False with
  // the error when they cannot (another grid); the session is then as it was.
  core::Status replaceLabels(core::LabelMap labels, const char* stepName);

  // After a finished edit, undo or redo. Without a step the whole map is recounted; with the step just committed,
  // undone or redone, the changed labels and their volumes come from one pass over the step.
  void labelsEdited(const std::set<core::Label>& changed);
  void labelsEdited(const core::EditStep& step);
  // During a stroke: voxels changed in place; `origin` is the view painted in (nullptr: all views redraw now).
  void labelsModifiedInPlace(QObject* origin = nullptr);

  // Table edits (add, rename, recolour, lock, an imported table, a SEG's or a revision's names): each is one undo
  // step named `stepName` (English, shown through editStepName), since names change what voxels mean.
  void setLabelEntry(const core::LabelEntry& entry, const char* stepName);
  void setLabelTable(core::LabelTable table, const char* stepName);
  void setLabelEntries(const core::LabelTable& entries, const char* stepName);  // each entry set, one announcement
  // The labels' own names for a map that replaces the labels (a table beside the file): one step with the voxels.
  core::Status replaceLabels(core::LabelMap labels, core::LabelTable table, const char* stepName);
  // Ids neither the table nor the map's voxels carry are free for a new label (0: none left).
  core::Label freeLabelId() const;

  // View state: hidden labels are not drawn (never dirties the session).
  void setLabelVisible(core::Label label, bool visible);
  bool isLabelVisible(core::Label label) const { return !m_hidden.count(label); }
  const std::set<core::Label>& hiddenLabels() const { return m_hidden; }
  // Voxels per label present in the map (background left out), kept across edits.
  const Counts& voxelCounts() const { return m_counts; }
  // A box holding each label present: exact after a recount, grown by each edit step that wrote the label (a label
  // that shrank keeps its larger box), so a whole-map scan is needed only when the map is replaced.
  const std::map<core::Label, core::IndexBox>& labelBoxes() const { return m_boxes; }

  bool isDirty() const { return m_session && m_session->isDirty(); }
  // The labels were saved as `revision` (e.g. "study/set/r3"): the session counts as clean at it.
  void markSaved(const std::string& revision);

  QString source() const { return m_source; }
  const io::DicomSeries* dicomSource() const { return m_dicomSource ? &*m_dicomSource : nullptr; }
  bool isCt() const { return m_isCt; }
  // The share label set the labels belong to (reset by a new study).
  const ShareTarget& shareTarget() const { return m_shareTarget; }
  void setShareTarget(const ShareTarget& target);

 Q_SIGNALS:
  // The session is about to be replaced or its labels rewritten: a stroke in progress must be rolled back, a journal
  // of the study that goes must be closed.
  void aboutToChange();
  void aboutToReplaceStudy();
  void studyReplaced();
  // Every voxel may have changed.
  void labelsReplaced();
  void edited(std::set<core::Label> changed);  // a finished edit, undo or redo; the labels whose voxels changed
  void modifiedInPlace(QObject* origin);       // during a stroke
  void labelEntryChanged(core::LabelEntry entry);
  void tableChanged();
  void visibilityChanged(core::Label label, bool visible);
  void dirtyChanged(bool dirty);
  void saved(QString revision);
  void shareTargetChanged();

 private:
  void recount();
  void noteDirty();

  std::optional<core::AnnotationSession> m_session;
  std::optional<io::DicomSeries> m_dicomSource;
  QString m_source;
  ShareTarget m_shareTarget;
  std::set<core::Label> m_hidden;
  Counts m_counts;
  std::map<core::Label, core::IndexBox> m_boxes;
  bool m_isCt = false;
  bool m_dirty = false;  // as last announced
};

}  // namespace delineate::app::gui
