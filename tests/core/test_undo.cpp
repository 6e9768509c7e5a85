#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <vector>

#include "core/annotation_session.h"
#include "core/edit_transaction.h"
#include "core/undo_history.h"

using namespace delineate::core;

namespace {
LabelMap makeMap(Size3 dims, Vec3 spacing = {1, 1, 1}) {
  return LabelMap::create(Geometry(dims, spacing, {-20, 15, 7})).value();
}

// A session on an n^3 image of 1 mm voxels with empty labels and an empty table.
AnnotationSession makeSession(std::int64_t n) {
  auto image = ImageVolume::create(Geometry({n, n, n}, {1, 1, 1}, {0, 0, 0})).value();
  return AnnotationSession::create(std::move(image), LabelTable{}).value();
}

std::vector<Label> snapshot(const LabelMap& m) { return std::vector<Label>(m.data(), m.data() + m.size()); }

// One random brush stroke: a few overlapping dabs along a line, as a mouse drag produces.
void randomStroke(EditTransaction& tx, std::mt19937& rng, const Geometry& g) {
  std::uniform_real_distribution<double> u(0, 1);
  std::uniform_int_distribution<int> label(0, 6), dabs(1, 6);
  const Label l = static_cast<Label>(label(rng));
  Vec3 p = g.indexToLps(Vec3{u(rng) * double(g.dimensions()[0]), u(rng) * double(g.dimensions()[1]),
                             u(rng) * double(g.dimensions()[2])});
  const double radius = 0.5 + u(rng) * 4.0;
  const int n = dabs(rng);
  for (int i = 0; i < n; ++i) {
    tx.paintSphere(p, radius, l);
    p[0] += (u(rng) - 0.5) * 4;
    p[1] += (u(rng) - 0.5) * 4;
    p[2] += (u(rng) - 0.5) * 2;
  }
}
}  // namespace

TEST_CASE("thousands of random brush edits undo and redo byte-identically", "[undo]") {
  LabelMap map = makeMap({61, 47, 29}, {0.9, 1.1, 2.0});
  UndoHistory history(std::size_t(1) << 30);
  std::mt19937 rng(2024);
  std::vector<std::vector<Label>> states{snapshot(map)};
  const int kEdits = 3000;
  for (int e = 0; e < kEdits; ++e) {
    EditTransaction tx(map, "Paint");
    randomStroke(tx, rng, map.geometry());
    if (auto step = tx.commit()) {
      history.push(std::move(*step));
      states.push_back(snapshot(map));
    }
  }
  const std::size_t recorded = history.undoCount();
  REQUIRE(recorded == states.size() - 1);
  REQUIRE(recorded > 2500);  // almost every stroke changes something

  for (std::size_t i = recorded; i > 0; --i) {
    REQUIRE(history.undo(map).value() == "Paint");
    if (i % 97 == 0) REQUIRE(snapshot(map) == states[i - 1]);  // spot checks on the way down
  }
  REQUIRE_FALSE(history.undo(map).has_value());
  REQUIRE(snapshot(map) == states.front());
  for (std::size_t i = 1; i <= recorded; ++i) {
    REQUIRE(history.redo(map).has_value());
    if (i % 89 == 0) REQUIRE(snapshot(map) == states[i]);
  }
  REQUIRE_FALSE(history.redo(map).has_value());
  REQUIRE(snapshot(map) == states.back());
}

TEST_CASE("random interleaving of edit, undo and redo matches a model", "[undo]") {
  LabelMap map = makeMap({33, 35, 17});
  UndoHistory history(std::size_t(1) << 30);
  std::mt19937 rng(7);
  std::vector<std::vector<Label>> states{snapshot(map)};
  std::size_t position = 0;  // index into states of the current state
  std::uniform_int_distribution<int> op(0, 9);
  for (int t = 0; t < 2000; ++t) {
    const int o = op(rng);
    if (o < 5) {
      EditTransaction tx(map, "Paint");
      randomStroke(tx, rng, map.geometry());
      if (auto step = tx.commit()) {
        history.push(std::move(*step));
        states.resize(position + 1);  // redo cleared
        states.push_back(snapshot(map));
        ++position;
      }
    } else if (o < 8) {
      REQUIRE(history.undo(map).has_value() == (position > 0));
      if (position > 0) --position;
    } else {
      REQUIRE(history.redo(map).has_value() == (position + 1 < states.size()));
      if (position + 1 < states.size()) ++position;
    }
    REQUIRE(history.undoCount() == position);
    REQUIRE(history.redoCount() == states.size() - 1 - position);
    if (t % 50 == 0) REQUIRE(snapshot(map) == states[position]);
  }
  REQUIRE(snapshot(map) == states[position]);
}

TEST_CASE("a new edit clears redo", "[undo]") {
  LabelMap map = makeMap({20, 20, 20});
  UndoHistory history;
  for (Label l : {Label(1), Label(2)}) {
    EditTransaction tx(map, "Box " + std::to_string(l));
    tx.fillBox(IndexBox{{l, l, l}, {10, 10, 10}}, l);
    history.push(*tx.commit());
  }
  REQUIRE(*history.nextUndoName() == "Box 2");
  history.undo(map);
  REQUIRE(history.canRedo());
  REQUIRE(*history.nextRedoName() == "Box 2");
  EditTransaction tx(map, "Erase");
  tx.fillBox(IndexBox{{0, 0, 0}, {3, 3, 3}}, 0);
  history.push(*tx.commit());
  REQUIRE_FALSE(history.canRedo());
  REQUIRE(history.undoCount() == 2);
}

TEST_CASE("the memory budget drops the oldest steps first", "[undo]") {
  LabelMap map = makeMap({64, 64, 64});
  UndoHistory history(std::size_t(1) << 30);
  std::vector<std::vector<Label>> states{snapshot(map)};
  // Every step writes a different checkerboard slab so no step compresses to nothing.
  for (int s = 0; s < 10; ++s) {
    EditTransaction tx(map, "Step " + std::to_string(s));
    for (std::int64_t k = 0; k < 64; ++k)
      for (std::int64_t j = 0; j < 64; ++j)
        for (std::int64_t i = 0; i < 64; ++i)
          if ((i + j + k + s) % 2 == 0) tx.set({i, j, k}, static_cast<Label>(s + 1));
    history.push(*tx.commit());
    states.push_back(snapshot(map));
  }
  const std::size_t perStep = history.memoryBytes() / 10;
  history.setBudgetBytes(perStep * 4 + perStep / 2);
  REQUIRE(history.undoCount() == 4);
  REQUIRE(history.droppedCount() == 6);
  REQUIRE(history.memoryBytes() <= history.budgetBytes());
  REQUIRE(*history.nextUndoName() == "Step 9");
  for (int i = 0; i < 4; ++i) history.undo(map);
  REQUIRE_FALSE(history.canUndo());
  REQUIRE(snapshot(map) == states[6]);  // the state after the oldest kept step's predecessor
  // Over budget, redo steps go too, furthest future first, keeping the next one.
  history.setBudgetBytes(perStep * 2 + perStep / 2);
  REQUIRE(history.redoCount() == 2);
  REQUIRE(*history.nextRedoName() == "Step 6");
  // A single step larger than the budget is still kept, so the edit just made can be undone.
  history.setBudgetBytes(1);
  REQUIRE(history.redoCount() == 1);
  EditTransaction tx(map, "Big");
  tx.fillBox(map.geometry().fullBox(), 42);
  history.push(*tx.commit());
  REQUIRE(history.undoCount() == 1);
  REQUIRE(history.redoCount() == 0);
  REQUIRE(history.memoryBytes() > history.budgetBytes());
  REQUIRE(history.undo(map).value() == "Big");
  REQUIRE(snapshot(map) == states[6]);
}

TEST_CASE("RLE XOR deltas are small for brush strokes", "[undo]") {
  LabelMap map = makeMap({256, 256, 100});
  EditTransaction tx(map, "Paint");
  const std::size_t n = tx.paintSphere(map.geometry().indexToLps(Index3{128, 128, 50}), 10.0, 5);
  auto step = tx.commit();
  REQUIRE(step);
  REQUIRE(n == step->changedVoxels());
  // A sphere of radius 10 voxels: about 4189 voxels.
  REQUIRE(step->changedVoxels() == Approx(4.0 / 3.0 * 3.14159265 * 1000).epsilon(0.05));
  // One run per row crossing plus the gaps: far below 2 bytes per voxel of the box.
  REQUIRE(step->memoryBytes() < std::size_t(step->box().voxelCount()) / 2);
}

TEST_CASE("locks and overwrite-only policies", "[undo]") {
  LabelMap map = makeMap({10, 10, 10});
  LabelTable table;
  REQUIRE(table.add(LabelEntry{1, "liver", {}, true, true, true, {}}).ok());  // locked
  REQUIRE(table.add(LabelEntry{2, "spleen", {}, true, false, true, {}}).ok());
  {
    EditTransaction tx(map, "seed", nullptr);
    tx.fillBox(IndexBox{{0, 0, 0}, {4, 9, 9}}, 1);
    tx.fillBox(IndexBox{{5, 0, 0}, {6, 9, 9}}, 2);
    REQUIRE(tx.commit());
  }
  {
    EditTransaction tx(map, "paint over", &table);
    REQUIRE(tx.fillBox(map.geometry().fullBox(), 3) == 500);  // only labels 0 and 2 change
    REQUIRE(tx.commit());
    REQUIRE(map.at({0, 0, 0}) == 1);
    REQUIRE(map.at({5, 0, 0}) == 3);
    REQUIRE(map.at({9, 9, 9}) == 3);
  }
  {
    EditPolicy onlyThree;
    onlyThree.overwriteOnly = Label(3);
    EditTransaction tx(map, "erase 3", &table, onlyThree);
    tx.fillBox(map.geometry().fullBox(), 0);
    REQUIRE(tx.commit());
    REQUIRE(map.at({0, 0, 0}) == 1);
    REQUIRE(map.at({9, 9, 9}) == 0);
  }
  {
    EditTransaction tx(map, "ignore locks", &table, EditPolicy{false, std::nullopt});
    tx.fillBox(map.geometry().fullBox(), 4);
    REQUIRE(tx.commit());
    REQUIRE(map.at({0, 0, 0}) == 4);
  }
}

TEST_CASE("an abandoned transaction leaves no partial state", "[undo]") {
  LabelMap map = makeMap({30, 30, 30});
  {
    EditTransaction tx(map, "seed");
    tx.fillBox(IndexBox{{0, 0, 0}, {9, 9, 9}}, 7);
    REQUIRE(tx.commit());
  }
  const auto before = snapshot(map);
  const auto revision = map.revision();
  {
    EditTransaction tx(map, "abandoned");
    tx.paintSphere(map.geometry().indexToLps(Index3{15, 15, 15}), 8, 3);
    tx.fillBox(IndexBox{{5, 5, 5}, {20, 20, 20}}, 0);
    REQUIRE(snapshot(map) != before);
  }  // destroyed without commit
  REQUIRE(snapshot(map) == before);
  REQUIRE(map.revision() > revision);  // views that drew the abandoned stroke are told to redraw
  EditTransaction tx(map, "no change");
  tx.fillBox(IndexBox{{0, 0, 0}, {9, 9, 9}}, 7);  // already 7
  REQUIRE_FALSE(tx.commit());
}

TEST_CASE("engine patches are written through the transaction", "[undo]") {
  LabelMap map = makeMap({16, 16, 16});
  LabelPatch patch;
  patch.box = IndexBox{{2, 2, 2}, {5, 5, 5}};
  patch.voxels.assign(64, 0);
  patch.voxels[0] = 9;
  patch.voxels[63] = 9;
  {
    EditTransaction tx(map, "AI");
    REQUIRE(tx.applyPatch(patch, true).value() == 2);
    REQUIRE(tx.commit()->changedVoxels() == 2);
  }
  REQUIRE(map.at({2, 2, 2}) == 9);
  REQUIRE(map.at({5, 5, 5}) == 9);
  LabelPatch bad = patch;
  bad.voxels.pop_back();
  EditTransaction tx(map, "bad");
  REQUIRE_FALSE(tx.applyPatch(bad, true).ok());
  LabelPatch outside = patch;
  outside.box = IndexBox{{14, 14, 14}, {17, 17, 17}};
  REQUIRE(tx.applyPatch(outside, true).error().code == ErrorCode::GeometryMismatch);
}

TEST_CASE("the session tracks dirty state through edits, undo and save", "[session]") {
  auto session = makeSession(12);
  REQUIRE_FALSE(session.isDirty());
  {
    EditTransaction tx = session.beginEdit("Paint");
    tx.fillBox(IndexBox{{0, 0, 0}, {3, 3, 3}}, 1);
    REQUIRE(session.commit(tx));
  }
  REQUIRE(session.isDirty());
  REQUIRE(session.markSaved("rev-1"));
  REQUIRE_FALSE(session.isDirty());
  REQUIRE(session.baseRevision() == "rev-1");
  session.undo();
  REQUIRE(session.isDirty());
  session.redo();
  REQUIRE_FALSE(session.isDirty());  // back to what was saved
  session.setLabelEntry(LabelEntry{1, "tumour", {200, 0, 0, 255}, true, false, true, {}});
  REQUIRE(session.isDirty());
  REQUIRE(session.markSaved("rev-2"));

  auto replacement = Volume<Label>::create(session.labels().geometry(), 4).value();
  REQUIRE(session.replaceLabels(replacement, "Import").ok());
  REQUIRE(session.labels().at({11, 11, 11}) == 4);
  REQUIRE(*session.history().nextUndoName() == "Import");
  session.undo();
  REQUIRE(session.labels().at({11, 11, 11}) == 0);
  REQUIRE(session.labels().at({0, 0, 0}) == 1);

  auto wrongGrid = Volume<Label>::create(Geometry({12, 12, 11}, {1, 1, 1}, {0, 0, 0}), 4).value();
  REQUIRE(session.replaceLabels(wrongGrid, "Import").error().code == ErrorCode::GeometryMismatch);
  REQUIRE(session.labels().at({0, 0, 0}) == 1);

  auto otherImage = ImageVolume::create(Geometry({12, 12, 12}, {1, 1, 1}, {0, 0, 0})).value();
  auto badLabels = LabelMap::create(Geometry({12, 12, 12}, {2, 1, 1}, {0, 0, 0})).value();
  REQUIRE_FALSE(AnnotationSession::create(std::move(otherImage), std::move(badLabels), LabelTable{}).ok());
}

TEST_CASE("only one transaction writes a map at a time, a moved transaction finishes once", "[undo]") {
  LabelMap map = makeMap({8, 8, 8});
  EditTransaction first(map, "first");
  REQUIRE(first.isOpen());
  REQUIRE(map.hasOpenTransaction());
  EditTransaction second(map, "second");
  REQUIRE_FALSE(second.isOpen());
  REQUIRE_FALSE(second.set({1, 1, 1}, 5));
  REQUIRE(second.fillBox(map.geometry().fullBox(), 5) == 0);
  REQUIRE_FALSE(second.commit());
  REQUIRE(map.hasOpenTransaction());  // the refused one did not release the first's claim

  const auto revision = map.revision();
  REQUIRE(first.set({2, 2, 2}, 3));
  REQUIRE(map.revision() > revision);  // writes in progress are visible to views
  EditTransaction moved(std::move(first));
  REQUIRE(moved.isOpen());
  REQUIRE_FALSE(first.isOpen());  // NOLINT(bugprone-use-after-move): moved-from state is specified
  REQUIRE_FALSE(first.commit());  // NOLINT(bugprone-use-after-move)
  REQUIRE(map.at({2, 2, 2}) == 3);
  auto step = moved.commit();
  REQUIRE(step);
  REQUIRE(step->changedVoxels() == 1);
  REQUIRE_FALSE(map.hasOpenTransaction());
  {
    EditTransaction third(map, "third");
    third.set({3, 3, 3}, 4);
    EditTransaction carried(std::move(third));
  }  // the moved-to transaction rolls back once; the moved-from one does nothing
  REQUIRE(map.at({3, 3, 3}) == 0);
  REQUIRE(map.at({2, 2, 2}) == 3);
  REQUIRE_FALSE(map.hasOpenTransaction());
}

TEST_CASE("undo and redo wait for an open edit, and a cancelled stroke keeps the history", "[undo]") {
  LabelMap map = makeMap({10, 10, 10});
  UndoHistory history;
  history.reset(map.contentRevision());
  {
    EditTransaction tx(map, "A");
    tx.fillBox(IndexBox{{0, 0, 0}, {4, 4, 4}}, 1);
    history.push(*tx.commit());
  }
  const auto afterA = snapshot(map);
  {
    EditTransaction open(map, "B");
    open.fillBox(IndexBox{{2, 2, 2}, {6, 6, 6}}, 2);
    REQUIRE_FALSE(history.undo(map).has_value());  // refused mid-stroke: no label nobody painted
    REQUIRE(history.canUndo());                    // and nothing was lost
    open.rollback();
  }
  REQUIRE(snapshot(map) == afterA);
  // A cancelled stroke leaves the history intact.
  REQUIRE(history.inSyncWith(map));
  REQUIRE(history.undo(map).value() == "A");
  REQUIRE(map.at({0, 0, 0}) == 0);

}

TEST_CASE("a step never writes outside its grid, and damaged runs write nothing", "[undo]") {
  LabelMap big = makeMap({64, 64, 64});
  EditTransaction tx(big, "far away");
  tx.fillBox(IndexBox{{50, 50, 50}, {60, 60, 60}}, 9);
  const EditStep step = *tx.commit();
  auto small = Volume<Label>::create(Geometry({10, 10, 10}, {1, 1, 1}, {0, 0, 0}), 1).value();
  const auto before = small.buffer();
  REQUIRE_FALSE(step.applyTo(small));
  REQUIRE(small.buffer() == before);

  const IndexBox box{{0, 0, 0}, {9, 0, 0}};  // 10 voxels
  auto runs = [](std::initializer_list<std::pair<std::uint64_t, Label>> list) {
    std::vector<std::uint8_t> out;
    for (const auto& [n, v] : list) EditStep::appendRun(out, n, v);
    return out;
  };
  REQUIRE(EditStep("ok", box, runs({{4, 0}, {6, 3}}), 6, 0, 1).applyTo(small));
  REQUIRE(small.at({9, 0, 0}) == (1 ^ 3));
  const auto good = small.buffer();
  std::vector<std::vector<std::uint8_t>> damaged = {
      runs({{4, 0}, {5, 3}}),           // covers 9 of 10 voxels
      runs({{4, 0}, {7, 3}}),           // covers 11
      {0x84},                           // varint that never ends
      {0x0a, 0x03},                     // value cut short
      std::vector<std::uint8_t>(12, 0xff),  // varint longer than 64 bits
  };
  for (const auto& d : damaged) {
    REQUIRE_FALSE(EditStep("bad", box, d, 6, 0, 1).applyTo(small));
    REQUIRE(small.buffer() == good);
  }
}

TEST_CASE("an edit the history did not record stops undo from going past it", "[undo]") {
  LabelMap map = makeMap({10, 10, 10});
  UndoHistory history;
  history.reset(map.contentRevision());
  {
    EditTransaction tx(map, "recorded");
    tx.fillBox(IndexBox{{0, 0, 0}, {5, 5, 5}}, 9);
    history.push(*tx.commit());
  }
  {
    EditTransaction tx(map, "behind its back");
    tx.fillBox(IndexBox{{3, 3, 3}, {8, 8, 8}}, 5);
    REQUIRE(tx.commit());  // step dropped on the floor
  }
  REQUIRE_FALSE(history.inSyncWith(map));
  // Undoing "recorded" now would XOR 9 into voxels that hold 5 and leave 12, a label nobody painted.
  REQUIRE_FALSE(history.undo(map).has_value());
  REQUIRE(map.at({4, 4, 4}) == 5);
  REQUIRE(map.at({0, 0, 0}) == 9);
  for (Label v : snapshot(map)) REQUIRE((v == 0 || v == 5 || v == 9));
  REQUIRE(history.inSyncWith(map));  // it started over from the map as it is
  {
    EditTransaction tx(map, "next");
    tx.set({9, 9, 9}, 1);
    history.push(*tx.commit());
  }
  REQUIRE(history.undo(map).value() == "next");
  REQUIRE(map.at({9, 9, 9}) == 0);
}

TEST_CASE("the session refuses foreign and concurrent edits and tracks in-progress and unrecorded changes",
          "[session]") {
  auto session = makeSession(8);
  LabelMap other = makeMap({64, 64, 64});
  {
    EditTransaction foreign(other, "foreign");
    foreign.fillBox(other.geometry().fullBox(), 3);
    REQUIRE_FALSE(session.commit(foreign));
    REQUIRE_FALSE(session.history().canUndo());
  }
  REQUIRE_FALSE(session.isDirty());
  {
    EditTransaction tx = session.beginEdit("Paint");
    tx.set({1, 1, 1}, 2);
    REQUIRE(session.editInProgress());
    REQUIRE(session.isDirty());  // the stroke in progress is an unsaved change
    EditTransaction concurrent = session.beginEdit("Paint again");
    REQUIRE_FALSE(concurrent.isOpen());
    auto replacement = Volume<Label>::create(session.labels().geometry(), 4).value();
    REQUIRE_FALSE(session.replaceLabels(replacement, "Import").ok());
    REQUIRE_FALSE(session.undo().has_value());
    tx.set({1, 1, 1}, 0);  // paint then erase within the stroke
    REQUIRE_FALSE(session.commit(tx));
  }
  REQUIRE_FALSE(session.isDirty());  // nothing changed in the end
  {
    EditTransaction tx = session.beginEdit("Paint");
    tx.set({2, 2, 2}, 2);
    REQUIRE(session.commit(tx));
  }
  REQUIRE(session.markSaved("rev-1"));
  {
    EditTransaction direct = session.beginEdit("bypass");
    direct.set({3, 3, 3}, 7);
    REQUIRE(direct.commit());  // committed without the session
  }
  REQUIRE(session.isDirty());
  REQUIRE(session.markSaved("rev-2"));
  REQUIRE_FALSE(session.isDirty());
}

TEST_CASE("a direct commit after a save keeps the session dirty through later undo", "[session]") {
  auto session = makeSession(8);
  REQUIRE(session.markSaved("r1"));
  {
    EditTransaction direct = session.beginEdit("bypass");
    direct.set({1, 1, 1}, 7);
    REQUIRE(direct.commit());
  }
  {
    EditTransaction tx = session.beginEdit("Paint");
    tx.set({2, 2, 2}, 3);
    REQUIRE(session.commit(tx));
  }
  REQUIRE(session.undo().value() == "Paint");
  REQUIRE(session.labels().at({1, 1, 1}) == 7);  // differs from what was saved
  REQUIRE(session.isDirty());
  REQUIRE_FALSE(session.undo().has_value());  // cannot go back past the unrecorded edit
}

TEST_CASE("saving is refused while an edit is open", "[session]") {
  auto session = makeSession(8);
  EditTransaction tx = session.beginEdit("Paint");
  tx.set({1, 1, 1}, 4);
  REQUIRE_FALSE(session.markSaved("r1"));
  tx.rollback();
  REQUIRE(session.markSaved("r1"));
  REQUIRE_FALSE(session.isDirty());
}

TEST_CASE("copies and assignments never carry an open transaction", "[undo]") {
  LabelMap map = makeMap({8, 8, 8});
  UndoHistory history;
  history.reset(map.contentRevision());
  {
    EditTransaction tx(map, "A");
    tx.fillBox(IndexBox{{0, 0, 0}, {3, 3, 3}}, 9);
    history.push(*tx.commit());
  }
  EditTransaction stroke(map, "stroke");
  stroke.set({5, 5, 5}, 2);
  const LabelMap snapshot = map;  // e.g. an autosave taken mid-stroke
  REQUIRE_FALSE(snapshot.hasOpenTransaction());

  // Reloading other labels into the same object detaches the open stroke: its rollback must not write old rows
  // into the new voxels, and the history must not XOR its steps into them.
  LabelMap reloaded = makeMap({8, 8, 8});
  {
    EditTransaction tx(reloaded, "other");
    tx.fillBox(IndexBox{{0, 0, 0}, {7, 7, 7}}, 5);
    REQUIRE(tx.commit());
  }
  map = reloaded;
  REQUIRE_FALSE(map.hasOpenTransaction());
  stroke.rollback();
  REQUIRE(map.at({5, 5, 5}) == 5);
  REQUIRE(map.at({0, 0, 0}) == 5);
  REQUIRE_FALSE(history.undo(map).has_value());
  REQUIRE(map.at({0, 0, 0}) == 5);  // not 5 ^ 9
  EditTransaction next(map, "next");
  REQUIRE(next.isOpen());
}

TEST_CASE("a step names the labels it changes between, on either side of it", "[undo]") {
  LabelMap map = makeMap({40, 30, 20});
  UndoHistory history;
  std::mt19937 rng(7);
  for (int e = 0; e < 200; ++e) {
    const std::vector<Label> before = snapshot(map);
    EditTransaction tx(map, "Paint");
    randomStroke(tx, rng, map.geometry());
    auto step = tx.commit();
    if (!step) continue;
    // Brute force: every label that a changed voxel held before or holds after.
    std::set<Label> expected;
    const std::vector<Label> after = snapshot(map);
    for (std::size_t i = 0; i < after.size(); ++i)
      if (before[i] != after[i]) expected.insert({before[i], after[i]});
    REQUIRE(step->labelsInvolved(map.voxels()) == expected);
    history.push(std::move(*step));
    REQUIRE(history.undo(map).has_value());
    REQUIRE(history.nextRedo()->labelsInvolved(map.voxels()) == expected);  // the other side
    REQUIRE(history.redo(map).has_value());
    REQUIRE(history.nextUndo()->labelsInvolved(map.voxels()) == expected);
  }
}

TEST_CASE("a step's count delta keeps label counts without recounting, both ways", "[undo]") {
  LabelMap map = makeMap({36, 28, 17});
  UndoHistory history;
  std::mt19937 rng(11);
  auto counts = [&] {
    std::map<Label, std::int64_t> c;
    for (std::size_t i = 0; i < map.size(); ++i) ++c[map.data()[i]];
    return c;
  };
  std::map<Label, std::int64_t> kept = counts();
  auto apply = [&](const std::map<Label, std::int64_t>& delta) {
    for (const auto& [label, d] : delta) {
      kept[label] += d;
      if (kept[label] == 0) kept.erase(label);
    }
  };
  for (int e = 0; e < 150; ++e) {
    EditTransaction tx(map, "Paint");
    randomStroke(tx, rng, map.geometry());
    auto step = tx.commit();
    if (!step) continue;
    apply(step->countDelta(map.voxels()));
    REQUIRE(kept == counts());
    history.push(std::move(*step));
    if (e % 3 == 0) {
      REQUIRE(history.undo(map).has_value());
      apply(history.nextRedo()->countDelta(map.voxels()));
      REQUIRE(kept == counts());
      REQUIRE(history.redo(map).has_value());
      apply(history.nextUndo()->countDelta(map.voxels()));
      REQUIRE(kept == counts());
    }
  }
}

TEST_CASE("table edits are undo steps, alone or with the voxels they name", "[session]") {
  // Issue 23: what voxels mean (their names) changed outside the undo history.
  AnnotationSession s = makeSession(8);
  LabelTable named;
  named.set(LabelEntry{7, "lesion", LabelTable::defaultColor(7), true, false, true, {}});
  REQUIRE(s.editTable(named, "Add label"));
  REQUIRE_FALSE(s.editTable(named, "Add label"));  // no change, no step
  CHECK(s.isDirty());
  REQUIRE(s.history().nextUndo()->tableChange());
  REQUIRE(s.undo() == std::string("Add label"));
  CHECK(s.table().empty());
  CHECK_FALSE(s.isDirty());
  REQUIRE(s.redo() == std::string("Add label"));
  CHECK(s.table() == named);

  // A voxel edit that brings its names: one step for both.
  LabelTable more = named;
  more.set(LabelEntry{8, "cyst", LabelTable::defaultColor(8), true, false, true, {}});
  EditTransaction tx = s.beginEdit("Segment everything");
  tx.set({1, 1, 1}, 8);
  REQUIRE(s.commit(tx, more));
  CHECK(s.table() == more);
  REQUIRE(s.undo() == std::string("Segment everything"));
  CHECK(s.table() == named);
  CHECK(s.labels().voxels().at({1, 1, 1}) == 0);
  REQUIRE(s.redo());
  CHECK(s.table() == more);
  CHECK(s.labels().voxels().at({1, 1, 1}) == 8);
}

TEST_CASE("a whole-map replace over rows of background and rows of labels undoes, redoes and rolls back exactly",
          "[undo]") {
  // Rows that held only background keep no copy in the transaction (issue 27); rows with a label keep theirs.
  LabelMap map = makeMap({7, 5, 4});
  {
    EditTransaction tx(map, "seed");
    for (std::int64_t x = 0; x < 7; ++x) tx.set({x, 1, 2}, 3);  // one full row
    tx.set({4, 3, 0}, 9);                                       // one voxel of another row
    REQUIRE(tx.commit());
  }
  const std::vector<Label> before = snapshot(map);
  std::mt19937 rng(27);
  std::uniform_int_distribution<int> label(0, 4);
  auto replacement = Volume<Label>::create(map.geometry()).value();
  for (std::size_t i = 0; i < replacement.size(); ++i) replacement[i] = static_cast<Label>(label(rng) == 0 ? 0 : label(rng));
  const std::vector<Label> after(replacement.data(), replacement.data() + replacement.size());

  {  // rolled back: every voxel as before, background rows included
    EditTransaction tx(map, "replace");
    REQUIRE(tx.assignAll(replacement).value() > 0);
    CHECK(snapshot(map) == after);
    tx.rollback();
    CHECK(snapshot(map) == before);
  }
  UndoHistory history;
  history.reset(map.contentRevision());
  EditTransaction tx(map, "replace");
  REQUIRE(tx.assignAll(replacement));
  auto step = tx.commit();
  REQUIRE(step);
  history.push(std::move(*step));
  CHECK(snapshot(map) == after);
  REQUIRE(history.undo(map));
  CHECK(snapshot(map) == before);
  REQUIRE(history.redo(map));
  CHECK(snapshot(map) == after);
}

TEST_CASE("labels replacing an empty map are taken over, not copied, and undo back to background", "[session]") {
  AnnotationSession session = makeSession(12);
  auto labels = Volume<Label>::create(session.labels().geometry()).value();
  for (std::size_t i = 0; i < labels.size(); i += 3) labels[i] = static_cast<Label>(1 + i % 5);
  const std::vector<Label> wanted(labels.data(), labels.data() + labels.size());
  const Label* buffer = labels.data();
  REQUIRE(session.replaceLabels(std::move(labels), "Open label map"));
  CHECK(session.labels().data() == buffer);  // the same memory: one map, not two
  CHECK(snapshot(session.labels()) == wanted);
  REQUIRE(session.undo());
  CHECK(snapshot(session.labels()) == std::vector<Label>(wanted.size(), 0));
  REQUIRE(session.redo());
  CHECK(snapshot(session.labels()) == wanted);

  // Onto labels already there: copied through the transaction, and undone to them.
  auto second = Volume<Label>::create(session.labels().geometry(), 7).value();
  const Label* secondBuffer = second.data();
  REQUIRE(session.replaceLabels(std::move(second), "Open another"));
  CHECK(session.labels().data() != secondBuffer);
  CHECK(snapshot(session.labels()) == std::vector<Label>(wanted.size(), 7));
  REQUIRE(session.undo());
  CHECK(snapshot(session.labels()) == wanted);
}

TEST_CASE("a volume created with zeros reads as zeros, and one with a fill holds the fill", "[volume]") {
  // Zero-filled volumes come from calloc unwritten (issue 27); every element must still read 0.
  for (int round = 0; round < 3; ++round) {
    {  // leave freed memory of ones behind for the next allocation to reuse
      auto ones = Volume<Label>::create(Geometry({64, 64, 64}, {1, 1, 1}, {0, 0, 0}), 1).value();
      CHECK(ones[ones.size() - 1] == 1);
    }
    auto zeros = Volume<Label>::create(Geometry({64, 64, 64}, {1, 1, 1}, {0, 0, 0})).value();
    CHECK(std::all_of(zeros.data(), zeros.data() + zeros.size(), [](Label l) { return l == 0; }));
    auto small = Volume<float>::create(Geometry({3, 2, 1}, {1, 1, 1}, {0, 0, 0})).value();
    CHECK(std::all_of(small.data(), small.data() + small.size(), [](float v) { return v == 0.0f; }));
    auto negative = Volume<float>::create(Geometry({3, 2, 1}, {1, 1, 1}, {0, 0, 0}), -0.0f).value();
    CHECK(std::signbit(negative[5]));
  }
}
