#include "app/gui/study/study_document.h"

#include "app/gui/base/window_level.h"
#include "core/statistics.h"

namespace delineate::app::gui {

StudyDocument::StudyDocument(QObject* parent) : QObject(parent) {}

void StudyDocument::setStudy(core::AnnotationSession session, const QString& source,
                             std::optional<io::DicomSeries> dicom) {
  Q_EMIT aboutToChange();
  Q_EMIT aboutToReplaceStudy();
  m_session.emplace(std::move(session));
  m_source = source;
  m_dicomSource = std::move(dicom);
  m_shareTarget = {};
  m_hidden.clear();
  for (const core::LabelEntry& e : m_session->table().entries())
    if (!e.visible) m_hidden.insert(e.id);
  m_isCt = looksLikeCt(m_session->image());
  recount();
  m_dirty = m_session->isDirty();
  Q_EMIT studyReplaced();
  Q_EMIT dirtyChanged(m_dirty);
}

core::Status StudyDocument::replaceLabels(core::LabelMap labels, const char* stepName) {
  if (!m_session) return core::makeError(core::ErrorCode::InvalidArgument, "", "no study is open");
  return replaceLabels(std::move(labels), m_session->table(), stepName);
}

core::Status StudyDocument::replaceLabels(core::LabelMap labels, core::LabelTable table, const char* stepName) {
  if (!m_session) return core::makeError(core::ErrorCode::InvalidArgument, "", "no study is open");
  Q_EMIT aboutToChange();
  const bool newTable = table != m_session->table();
  // The map's buffer is taken over where the session's map is background only (a study's first labels).
  if (core::Status s = m_session->replaceLabels(std::move(labels).release(), stepName, std::move(table)); !s) return s;
  recount();
  Q_EMIT labelsReplaced();
  if (newTable) Q_EMIT tableChanged();
  noteDirty();
  return core::Status::success();
}

void StudyDocument::recount() {
  m_counts.clear();
  m_boxes.clear();
  if (!m_session) return;
  // Counts come from core's statistics (no image: no intensity pass); edits then keep them from their steps.
  core::StatisticsOptions countsOnly;
  countsOnly.median = false;
  countsOnly.diameter = false;
  if (auto stats = core::computeLabelStatistics(m_session->labels(), nullptr, countsOnly))
    for (const core::LabelStatistics& st : *stats) {
      m_counts[st.label] = st.voxelCount;
      m_boxes[st.label] = st.box;
    }
}

void StudyDocument::noteDirty() {
  const bool dirty = isDirty();
  if (dirty == m_dirty) return;
  m_dirty = dirty;
  Q_EMIT dirtyChanged(dirty);
}

void StudyDocument::labelsEdited(const std::set<core::Label>& changed) {
  if (!m_session) return;
  recount();
  Q_EMIT edited(changed);
  noteDirty();
}

void StudyDocument::labelsEdited(const core::EditStep& step) {
  if (!m_session) return;
  const core::EditStep::LabelChanges changes = step.labelChanges(m_session->labels().voxels());
  for (const auto& [label, delta] : changes.delta) {
    if (label == 0) continue;
    const std::int64_t now = static_cast<std::int64_t>(m_counts[label]) + delta;
    if (now > 0) {
      m_counts[label] = static_cast<std::uint64_t>(now);
      m_boxes[label].include(step.box());  // a label that grew lies within its old box and the step's
    } else {
      m_counts.erase(label);
      m_boxes.erase(label);
    }
  }
  Q_EMIT edited(changes.involved);
  if (step.tableChange()) Q_EMIT tableChanged();  // the step added, renamed or restored names
  noteDirty();
}

void StudyDocument::labelsModifiedInPlace(QObject* origin) {
  Q_EMIT modifiedInPlace(origin);
  noteDirty();  // a stroke in progress counts as unsaved
}

void StudyDocument::setLabelEntry(const core::LabelEntry& entry, const char* stepName) {
  if (!m_session) return;
  core::LabelTable table = m_session->table();
  table.set(entry);
  if (!m_session->editTable(std::move(table), stepName)) return;
  Q_EMIT labelEntryChanged(entry);
  noteDirty();
}

void StudyDocument::setLabelTable(core::LabelTable table, const char* stepName) {
  if (!m_session) return;
  if (!m_session->editTable(std::move(table), stepName)) return;
  Q_EMIT tableChanged();
  noteDirty();
}

void StudyDocument::setLabelEntries(const core::LabelTable& entries, const char* stepName) {
  if (!m_session) return;
  core::LabelTable table = m_session->table();
  for (const core::LabelEntry& e : entries.entries()) table.set(e);
  setLabelTable(std::move(table), stepName);
}

core::Label StudyDocument::freeLabelId() const {
  if (!m_session) return 0;
  std::set<core::Label> carried;
  for (const auto& [label, count] : m_counts) carried.insert(label);
  return m_session->table().nextFreeId(carried);
}

void StudyDocument::setLabelVisible(core::Label label, bool visible) {
  if (visible) m_hidden.erase(label);
  else m_hidden.insert(label);
  if (m_session) Q_EMIT visibilityChanged(label, visible);
}

void StudyDocument::markSaved(const std::string& revision) {
  if (!m_session || !m_session->markSaved(revision)) return;
  Q_EMIT saved(QString::fromStdString(revision));
  noteDirty();
}

void StudyDocument::setShareTarget(const ShareTarget& target) {
  m_shareTarget = target;
  Q_EMIT shareTargetChanged();
}

}  // namespace delineate::app::gui
