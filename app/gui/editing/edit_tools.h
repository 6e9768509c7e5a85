#pragma once
// The manual editing tools (the Tools dock) and the Edit menu's undo/redo. A brush or eraser stroke is one
// EditTransaction from press to release (one undo step however long the drag); flood fill and the per-label
// operations (islands, holes, smoothing, interpolation between slices) are one step each. Every edit goes through
// the session, so locked labels are never overwritten and Ctrl+Z / Ctrl+Shift+Z restore the voxels exactly.
//
// Keys: B brush, E eraser, F flood fill, N navigate; [ and ] (or Shift + wheel over a view) resize the brush.

#include <QWidget>

#include <optional>
#include <set>

#include "core/edit_transaction.h"
#include "core/geometry.h"
#include "core/label_patch.h"
#include "core/label_tools.h"

class QAction;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QSpinBox;
class QToolButton;

namespace delineate::app::gui {

class SlicePanel;
class StudyDocument;
class Workbench;

class EditTools : public QWidget {
  Q_OBJECT

 public:
  enum class Tool { Navigate, Brush, Eraser, FloodFill };

  // Edits `document`'s session; the views, messages and window-wide shortcuts come from `bench`.
  EditTools(StudyDocument& document, Workbench& bench, QWidget* parent = nullptr);
  ~EditTools() override;
  void attach(SlicePanel* panel);

  void setTool(Tool tool);
  Tool tool() const { return m_tool; }
  double brushRadius() const;
  // The radius a study on `geometry` starts with: three of its finest voxels, at most a twentieth of its smallest
  // extent (a CT gets a few millimetres, a mouse brain a fraction of one), rounded to what the spin box shows.
  static double defaultBrushRadius(const core::Geometry& geometry);
  void setBrushRadius(double mm);
  void setSphere(bool sphere);
  void setFlood3d(bool threeD);
  // Threshold-constrained paint and fill: only voxels whose image value lies in the range (nullopt: off).
  void setIntensityRange(std::optional<core::IntensityRange> range);
  // Brush writes only over background, eraser removes only the active label.
  void setProtectOtherLabels(bool protect);
  void setActiveLabel(core::Label label) { m_active = label; }
  core::Label activeLabel() const { return m_active; }

  // One undo step each, on the active label. False (reported) when nothing could be done.
  bool keepLargestIsland();
  bool removeSmallIslands();
  bool fillHoles();
  bool smooth();
  // Interpolation fills unlabelled voxels; where other labels hold the voxels between the slices it says so, and
  // (dialogs on) offers interpolateOverOtherLabels().
  bool interpolate();
  bool interpolateOverOtherLabels();

  // An engine result as one undo step (keepBackground: the patch's zeros leave the labels as they are).
  // `names`: an engine's classes. Only the ids the patch writes are named, in the same undo step; an id the table
  // names otherwise, or that voxels carry unnamed, is written under a free id instead, so the engine's class never
  // takes another label's voxels or name.
  bool applyPatch(const core::LabelPatch& patch, const char* name, bool keepBackground,
                  const core::LabelTable* names = nullptr);

  // Tool choice (N, B, E, F) and brush size ([, ]), for the Edit menu.
  QList<QAction*> toolActions() const;
  QAction* undoAction() const { return m_undo; }
  QAction* redoAction() const { return m_redo; }
  bool undo();
  bool redo();
  // The session is about to be replaced or its labels rewritten: a stroke in progress is rolled back.
  void cancelStroke();
  bool strokeInProgress() const { return m_stroke.has_value(); }
  void updateUndoActions();
  void retranslate();

 private:
  core::BrushOptions brushOptions(const SlicePanel* panel) const;
  core::EditPolicy policy(core::Label writing) const;
  // Slice interpolation of the active label across the chosen view's axis, one undo step; `work` says what it met.
  bool runInterpolation(bool overOtherLabels, core::ToolWork& work);
  void beginStroke(SlicePanel* panel, const core::Vec3& lps);
  void continueStroke(const core::Vec3& from, const core::Vec3& to);
  void endStroke();
  void floodFill(SlicePanel* panel, const core::Vec3& lps);
  // Runs `op` in one transaction named `name` on the active label; commits and refreshes.
  bool runOperation(const char* name, const std::function<core::Result<std::size_t>(core::EditTransaction&)>& op,
                    core::EditPolicy policy = {});
  bool commit(core::EditTransaction& tx, std::optional<core::LabelTable> table = std::nullopt);
  void showBrush(SlicePanel* panel, const core::Vec3& lps);

  StudyDocument& m_document;
  Workbench& m_bench;
  Tool m_tool = Tool::Navigate;
  core::Label m_active = 0;
  std::optional<core::EditTransaction> m_stroke;
  // An engine result that arrived during a stroke: applied when the stroke ends, so neither is lost.
  struct PendingPatch {
    core::LabelPatch patch;
    const char* name;
    bool keepBackground;
    std::optional<core::LabelTable> names;
  };
  std::optional<PendingPatch> m_pendingPatch;
  SlicePanel* m_strokePanel = nullptr;
  std::vector<SlicePanel*> m_panels;

  QAction* m_undo = nullptr;
  QAction* m_redo = nullptr;
  QAction* m_toolActions[4] = {};
  QAction* m_grow = nullptr;
  QAction* m_shrink = nullptr;
  QToolButton* m_toolButtons[4] = {};
  QDoubleSpinBox* m_radius = nullptr;
  QCheckBox* m_sphere = nullptr;
  QCheckBox* m_flood3d = nullptr;
  QCheckBox* m_protect = nullptr;
  QCheckBox* m_threshold = nullptr;
  QDoubleSpinBox* m_low = nullptr;
  QDoubleSpinBox* m_high = nullptr;
  QSpinBox* m_minIsland = nullptr;
  QDoubleSpinBox* m_smoothRadius = nullptr;
  QComboBox* m_interpolateAxis = nullptr;
};

// The display name of an edit step ("Paint", "Keep largest island") in the user's language.
QString editStepName(const std::string& name);

}  // namespace delineate::app::gui
