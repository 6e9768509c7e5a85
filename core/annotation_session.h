#pragma once
// One open study being annotated: image, label map, label table, undo history, dirty state and the share
// revision the labels were based on.

#include <cstddef>
#include <optional>
#include <string>

#include "core/edit_transaction.h"
#include "core/label_map.h"
#include "core/label_table.h"
#include "core/scalar_image.h"
#include "core/undo_history.h"
#include "core/volume.h"

namespace delineate::core {

class AnnotationSession {
 public:
  // Starts with empty labels, or with `labels` (grid must match the image). The image keeps its stored type.
  static Result<AnnotationSession> create(ScalarImage image, LabelTable table,
                                          std::size_t undoBudgetBytes = UndoHistory::kDefaultBudgetBytes);
  static Result<AnnotationSession> create(ScalarImage image, LabelMap labels, LabelTable table,
                                          std::size_t undoBudgetBytes = UndoHistory::kDefaultBudgetBytes);
  static Result<AnnotationSession> create(ImageVolume image, LabelTable table,
                                          std::size_t undoBudgetBytes = UndoHistory::kDefaultBudgetBytes);
  static Result<AnnotationSession> create(ImageVolume image, LabelMap labels, LabelTable table,
                                          std::size_t undoBudgetBytes = UndoHistory::kDefaultBudgetBytes);

  const ScalarImage& image() const { return m_image; }
  const LabelMap& labels() const { return m_labels; }
  const LabelTable& table() const { return m_table; }
  const UndoHistory& history() const { return m_history; }

  // Edits: begin, write through the transaction, commit here (recorded for undo, marks dirty). While an edit is
  // open, beginEdit returns a closed transaction and undo/redo/replaceLabels are refused.
  EditTransaction beginEdit(std::string name, EditPolicy policy = {});
  // False (and the transaction left as it is) for a transaction on another map, or when nothing changed.
  // `tableAfter`: the table the step leaves (the names of the labels it writes), undone and redone with the voxels;
  // when the voxels did not change but the table does, the table change alone is the step.
  bool commit(EditTransaction& transaction, std::optional<LabelTable> tableAfter = std::nullopt);

  // Undo and redo restore the label table too where the step changed it.
  std::optional<std::string> undo();
  std::optional<std::string> redo();
  bool editInProgress() const { return m_labels.hasOpenTransaction(); }

  // Replaces all labels (import, accepted engine result) as one undoable step; with `table`, the labels' own table
  // replaces the session's in the same step.
  Status replaceLabels(const Volume<Label>& labels, const std::string& stepName,
                       std::optional<LabelTable> table = std::nullopt);
  // The same; onto a map of background only, `labels`' buffer is taken over instead of copied.
  Status replaceLabels(Volume<Label>&& labels, const std::string& stepName, std::optional<LabelTable> table = std::nullopt);

  // A table edit as an undo step of its own (a new label, a rename, an imported table: they change what voxels
  // mean). False when `table` equals the current one (nothing recorded).
  bool editTable(LabelTable table, std::string stepName);

  // Label table edits outside the undo history (the CLI naming a session's labels) mark the session dirty.
  void setLabelEntry(LabelEntry entry);
  void setTable(LabelTable table);

  // Unsaved changes: table edits, a different recorded state, an edit in progress or an edit the history missed.
  bool isDirty() const {
    return m_tableDirty || editInProgress() || m_history.stateSerial() != m_savedSerial ||
           !m_history.inSyncWith(m_labels);
  }
  // After a successful save: the current state is what the share holds at `revision`. Refused (false) while an edit
  // is in progress: a save must not capture half a stroke, and the caller saves once the edit is finished.
  bool markSaved(std::string revision);
  const std::string& baseRevision() const { return m_baseRevision; }

 private:
  AnnotationSession(ScalarImage image, LabelMap labels, LabelTable table, std::size_t budget);

  ScalarImage m_image;
  LabelMap m_labels;
  LabelTable m_table;
  UndoHistory m_history;
  std::uint64_t m_savedSerial = 0;
  bool m_tableDirty = false;
  std::string m_baseRevision;
};

}  // namespace delineate::core
