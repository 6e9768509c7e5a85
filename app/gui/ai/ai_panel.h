#pragma once
// The AI dock: which engine segments (VISTA-3D or the classic CPU engine, its device and why), "Segment everything",
// "Segment selected classes" (a class picker from the engine's label table), and click mode: left click = positive
// point, Shift + left or right click = negative; after each point the object is recomputed in the background and
// shown as a preview over the labels; Accept writes it, as one undo step, into the label chosen under "Accept into"
// (a new label unless the user picked one: in that list or in the labels dock), Discard drops it.
// Engines are reached only through inference/engine.h and run off the GUI thread, one job at a time; clicks made
// while one computes are queued and run in order.
//
// Prompts (issue 45): the prompt tool chooses what a click or drag in a slice view gives: a point (P), a box (X), a
// scribble (S) or a lasso (L); choosing one turns click mode on. A box drawn in a second view right after one in
// another view makes the two one 3D box. Every engine takes every prompt (inference/
// interactive.h). With a trained atlas network as the engine, prompts whose "Accept into" label is one of its classes
// edit that label through the network's probabilities (model-guided, inference/guided_session.h), starting from the
// label as it is; other labels and new ones are grown by the classic engine from the intensities.
//
// Keys: A click mode, P/X/S/L prompt tool, Return accept, Escape discard, Backspace remove the last prompt.

#include <QElapsedTimer>
#include <QWidget>

#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "core/label_patch.h"
#include "core/label_table.h"
#include "inference/engine.h"
#include "inference/interactive.h"
#include "inference/model_fit.h"
#include "app/gui/views/view_panels.h"

class QAction;
class QComboBox;
class QLabel;
class QListWidget;
class QPushButton;
class QToolButton;

namespace delineate::app::gui {

class EditTools;
class StudyDocument;
class Workbench;

class AiPanel : public QWidget {
  Q_OBJECT

 public:
  // Segments `document`'s image; results and accepted objects are written through `tools` (one undo step each).
  AiPanel(StudyDocument& document, Workbench& bench, EditTools& tools, QWidget* parent = nullptr);
  ~AiPanel() override;

  bool engineReady() const { return m_engine != nullptr; }
  // The preferences changed (checkpoint, device): the engine is chosen again.
  void rebuildEngine();
  // Lists the share's trained models (share/root) in the model chooser, on a worker; modelsListed() follows.
  void refreshModels();
  // AI > Get Models as a button under the engine line (the window's action; again after the menus are rebuilt).
  void setGetModelsAction(QAction* action);
  QComboBox* modelChooser() const { return m_model; }
  // Makes `reference` (share:ROOT#MODEL@REV, or a checkpoint file) the engine's model, built now when a study is open
  // (engineChanged follows); false while an engine builds or segments (nothing changes then).
  bool useModel(const QString& reference);
  QString engineDescription() const;

  bool segmentEverything();
  // Engine class ids (the engine's label table); empty = those checked in the picker.
  bool segmentClasses(std::vector<core::Label> classes = {});

  void setClickMode(bool on);
  bool clickMode() const { return m_clickMode; }
  // Queues a point (click mode on and a study open); the preview follows when the engine is done.
  bool addPoint(const core::Vec3& lps, bool positive);
  // Queues any prompt; a box, scribble or lasso drawn in a view comes through addDrawnPrompt.
  bool addPrompt(const inference::Prompt& prompt);
  bool addDrawnPrompt(SlicePanel::PromptTool tool, const std::vector<core::Vec3>& pointsLps, const core::Vec3& normalLps,
                      bool positive);
  void setPromptTool(SlicePanel::PromptTool tool);
  SlicePanel::PromptTool promptTool() const { return m_tool; }
  // How the next object's prompts are computed: "model-guided" (the atlas network's probabilities), or the engine's
  // own sessions ("classic", "vista3d"); and, model-guided, the label edited.
  QString promptMode() const;
  bool undoPoint();
  bool acceptObject();
  void discardObject();
  bool busy() const { return m_running; }
  std::size_t pointCount() const { return m_confirmedPoints.size(); }  // prompts of the object, of any kind
  const std::vector<inference::Prompt>& prompts() const { return m_confirmedPoints; }
  std::size_t objectVoxels() const;
  // Milliseconds of the last click: the engine's work, and the display update after it.
  double lastEngineMs() const { return m_engineMs; }
  double lastDisplayMs() const { return m_displayMs; }
  QListWidget* classList() const { return m_classes; }
  // Where Accept writes the object: a label id, or 0 for a new label (a free id, named in the same undo step).
  core::Label acceptTarget() const;
  // The user chose `label` (in the labels dock, or by adding it): the next objects go there.
  void setAcceptTarget(core::Label label);
  QList<QAction*> actions() const { return m_actions; }
  void retranslate();
  // Whether the engine's trained model fits the open study (inference/model_fit.h): Fits for the classic engine and
  // plain VISTA-3D (nothing recorded to check against), Unknown for a trained model whose sidecar records no training
  // data profile (older checkpoints: a warning, not a refusal).
  inference::ModelFit modelFit() const;
  // The sentence the dock shows and the refusal names: "model trained on ...; this CT is ...: field of view 13x
  // larger" in the window's language; empty when it fits.
  QString modelFitText(const inference::ModelFit& fit) const;

 Q_SIGNALS:
  void engineChanged();
  void modelsListed();
  void previewUpdated();              // a click's object is shown
  void segmentationFinished(bool ok); // segment everything / selected classes
  void clickModeChanged(bool on);
  void objectAccepted(core::Label label);  // written into `label` (a new one, when the target was "new label")

 private:
  // A new study (or none): drops the click session and the preview; builds the engine the first time.
  void studyChanged();
  void buildEngine();
  void runNextPoint();
  void showPreview();
  void clearPreview();
  // Draws the points (confirmed, computing, queued) as +/- markers in the slice views that hold them.
  void showPoints();
  // Whether the next session is model-guided (an atlas engine and a target among its classes), and the label.
  bool guidedTarget(core::Label& label) const;
  void updatePromptHints();
  void updateState();
  void fillTargets();
  bool runSegmentation(std::vector<core::Label> classes, const char* stepName);
  // Before the model runs on the study: true when it fits, or fits unknown (a warning shown), or the user confirmed
  // running it on a study it does not fit (asked once per study and model; without dialogs: refused). A study too
  // large on the model's grid is refused outright. Refusals are reported naming why.
  bool checkModelFit(const QString& what);
  QString engineWhyText() const;

  StudyDocument& m_document;
  Workbench& m_bench;
  EditTools& m_tools;
  std::shared_ptr<inference::SegmentationEngine> m_engine;
  QString m_engineWhy;  // the engine's own words (English), shown only for a reason the window does not know
  // Why this engine, worded here in the window's language (engineWhyText), so a language switch re-words it.
  inference::EngineChoice::Reason m_engineReason = inference::EngineChoice::Reason::Other;
  bool m_engineFineTuned = false, m_engineFellBack = false;
  QString m_engineCheckpoint, m_engineNote;
  // The engine's description, read once when it is built; its classes: its own table, or VISTA-3D's from the
  // resources (the engine itself knows ids only).
  inference::EngineInfo m_info;
  // The trained model's training data profile and grid, read with its sidecar when the engine was built; nullopt for
  // the classic engine and a plain VISTA-3D checkpoint.
  std::optional<inference::ModelFitProfile> m_fitProfile;
  std::optional<std::uint64_t> m_fitConfirmed;  // the study generation the user chose to run a misfit model on
  std::shared_ptr<inference::InteractiveSession> m_session;
  core::Label m_sessionEdits = 0;  // a model-guided session's label: Accept replaces it (0: Accept adds the object)
  SlicePanel::PromptTool m_tool = SlicePanel::PromptTool::Point;
  QToolButton* m_toolButtons[4] = {nullptr, nullptr, nullptr, nullptr};
  QLabel* m_toolLabel = nullptr;
  std::deque<inference::Prompt> m_queue;
  // The session's points, copied while no job holds it (their count is the object's point count).
  std::vector<inference::Prompt> m_confirmedPoints;
  std::optional<inference::Prompt> m_computing;      // the point a job is adding now
  bool m_running = false;
  bool m_building = false;
  bool m_clickMode = false;
  std::uint64_t m_generation = 0;       // click objects: bumped by a discard or a new study (older clicks dropped)
  std::uint64_t m_studyGeneration = 0;  // bumped by a new study only (a running segmentation's result is dropped)
  std::size_t m_objectVoxels = 0;       // of the shown object, read when its worker was idle
  double m_engineMs = 0, m_displayMs = 0;

  QLabel* m_modelLabel = nullptr;
  QComboBox* m_model = nullptr;  // "ai-model": "" (the preferences), then share:ROOT#MODEL@REV of the share's models
  QPushButton* m_modelRefresh = nullptr;
  QToolButton* m_getModels = nullptr;
  QLabel* m_engineLabel = nullptr;
  QLabel* m_status = nullptr;
  QLabel* m_fit = nullptr;  // "ai-fit": why the model does not fit the study, or that its fit is unknown
  QPushButton* m_everything = nullptr;
  QPushButton* m_selected = nullptr;
  QListWidget* m_classes = nullptr;
  QPushButton* m_clickButton = nullptr;
  QPushButton* m_accept = nullptr;
  QPushButton* m_discard = nullptr;
  QPushButton* m_undoPoint = nullptr;
  QLabel* m_classesLabel = nullptr;
  QLabel* m_clickHelp = nullptr;
  QLabel* m_targetLabel = nullptr;
  QComboBox* m_target = nullptr;  // "ai-target": 0 (a new label), then the labels of the study
  core::Label m_chosenTarget = 0;
  QList<QAction*> m_actions;  // click mode, accept, discard, undo point (with their keys)
};

}  // namespace delineate::app::gui
