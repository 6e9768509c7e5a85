#include "core/annotation_session.h"

#include <new>
#include <utility>

namespace delineate::core {

AnnotationSession::AnnotationSession(ScalarImage image, LabelMap labels, LabelTable table, std::size_t budget)
    : m_image(std::move(image)), m_labels(std::move(labels)), m_table(std::move(table)), m_history(budget) {
  m_history.reset(m_labels.contentRevision());
  m_savedSerial = m_history.stateSerial();
}

Result<AnnotationSession> AnnotationSession::create(ScalarImage image, LabelTable table, std::size_t budget) {
  auto labels = LabelMap::create(image.geometry());
  if (!labels) return labels.error();
  return AnnotationSession(std::move(image), std::move(labels).value(), std::move(table), budget);
}

Result<AnnotationSession> AnnotationSession::create(ScalarImage image, LabelMap labels, LabelTable table,
                                                    std::size_t budget) {
  if (Status s = image.geometry().validate(); !s) return s.error();
  if (!labels.geometry().isCloseTo(image.geometry()))
    return makeError(ErrorCode::GeometryMismatch, {}, "the label map is not on the image grid");
  return AnnotationSession(std::move(image), std::move(labels), std::move(table), budget);
}

EditTransaction AnnotationSession::beginEdit(std::string name, EditPolicy policy) {
  return EditTransaction(m_labels, std::move(name), &m_table, policy);
}

bool AnnotationSession::commit(EditTransaction& transaction, std::optional<LabelTable> tableAfter) {
  if (!transaction.writes(m_labels) || !transaction.isOpen()) return false;
  const std::string name = transaction.name();
  std::optional<EditStep> step = transaction.commit();
  if (!step) return tableAfter ? editTable(std::move(*tableAfter), name) : false;
  if (tableAfter && *tableAfter != m_table) {
    step->setTableChange(m_table, *tableAfter);
    m_table = std::move(*tableAfter);
  }
  m_history.push(std::move(*step));
  return true;
}

bool AnnotationSession::editTable(LabelTable table, std::string stepName) {
  if (table == m_table && table.notes() == m_table.notes()) return false;
  const std::uint64_t revision = m_labels.contentRevision();
  EditStep step(std::move(stepName), IndexBox{}, {}, 0, revision, revision);
  step.setTableChange(m_table, table);
  m_table = std::move(table);
  m_history.push(std::move(step));
  return true;
}

std::optional<std::string> AnnotationSession::undo() {
  std::optional<std::string> name = m_history.undo(m_labels);
  if (name)
    if (const EditStep* step = m_history.nextRedo(); step && step->tableChange()) m_table = step->tableChange()->before;
  return name;
}

std::optional<std::string> AnnotationSession::redo() {
  std::optional<std::string> name = m_history.redo(m_labels);
  if (name)
    if (const EditStep* step = m_history.nextUndo(); step && step->tableChange()) m_table = step->tableChange()->after;
  return name;
}

namespace {

// One undoable step that replaces every voxel through `assign(transaction)`.
template <class Assign>
Status replaceThrough(AnnotationSession& session, const std::string& stepName, std::optional<LabelTable> table,
                      Assign&& assign) {
  EditTransaction tx = session.beginEdit(stepName, EditPolicy{false, std::nullopt});
  if (!tx.isOpen()) return makeError(ErrorCode::InvalidArgument, {}, "another edit is in progress");
  try {
    Result<std::size_t> r = assign(tx);
    if (!r) return r.error();  // tx rolls back in its destructor
  } catch (const std::bad_alloc&) {
    return makeError(ErrorCode::OutOfMemory, {}, "not enough memory to record the replaced labels for undo");
  }
  session.commit(tx, std::move(table));
  return Status::success();
}

}  // namespace

Status AnnotationSession::replaceLabels(const Volume<Label>& labels, const std::string& stepName,
                                       std::optional<LabelTable> table) {
  return replaceThrough(*this, stepName, std::move(table), [&](EditTransaction& tx) { return tx.assignAll(labels); });
}

Status AnnotationSession::replaceLabels(Volume<Label>&& labels, const std::string& stepName,
                                       std::optional<LabelTable> table) {
  return replaceThrough(*this, stepName, std::move(table),
                        [&](EditTransaction& tx) { return tx.assignAll(std::move(labels)); });
}

void AnnotationSession::setLabelEntry(LabelEntry entry) {
  m_table.set(std::move(entry));
  m_tableDirty = true;
}

void AnnotationSession::setTable(LabelTable table) {
  m_table = std::move(table);
  m_tableDirty = true;
}

bool AnnotationSession::markSaved(std::string revision) {
  if (editInProgress()) return false;
  // What was saved includes any change the history missed; the history restarts from it.
  if (!m_history.inSyncWith(m_labels)) m_history.reset(m_labels.contentRevision());
  m_savedSerial = m_history.stateSerial();
  m_tableDirty = false;
  m_baseRevision = std::move(revision);
  return true;
}

Result<AnnotationSession> AnnotationSession::create(ImageVolume image, LabelTable table, std::size_t budget) {
  return create(ScalarImage(std::move(image)), std::move(table), budget);
}

Result<AnnotationSession> AnnotationSession::create(ImageVolume image, LabelMap labels, LabelTable table,
                                                    std::size_t budget) {
  return create(ScalarImage(std::move(image)), std::move(labels), std::move(table), budget);
}

}  // namespace delineate::core
