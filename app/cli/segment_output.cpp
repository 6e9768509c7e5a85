#include "app/cli/segment_output.h"

#include <cstdio>
#include <vector>

#include "app/cli/commands.h"
#include "io/labels/label_table_io.h"
#include "io/studies/checkpoint_fetch.h"
#include "io/report/statistics_report.h"
#include "io/volume/image_file.h"

namespace delineate::app::cli {

core::LabelTable engineLabelTable(const inference::EngineInfo& engine, const core::LabelTable& given) {
  core::LabelTable table = engine.classes;
  for (const core::LabelEntry& e : given.entries()) table.set(e);
  return table;
}

int resolveCheckpointArgument(std::string& checkpoint) {
  std::string note;
  auto local = io::resolveCheckpoint(checkpoint, {}, &note);
  if (!local) return fileError(local.error());
  if (!note.empty()) std::fprintf(stderr, "warning: %s\n", note.c_str());
  checkpoint = *local;
  return 0;
}

core::Result<core::LabelMap> labelsOnGrid(const core::Geometry& g, const core::LabelPatch& patch,
                                          const std::string& engineId) {
  if (!patch.valid() || !g.contains(patch.box.min) || !g.contains(patch.box.max))
    return core::makeError(core::ErrorCode::InvalidArgument, engineId, "the engine returned labels that do not fit the image");
  auto voxels = core::Volume<core::Label>::create(g, 0);
  if (!voxels) return voxels.error();
  const auto& dims = g.dimensions();
  std::size_t o = 0;
  for (std::int64_t z = patch.box.min[2]; z <= patch.box.max[2]; ++z)
    for (std::int64_t y = patch.box.min[1]; y <= patch.box.max[1]; ++y)
      for (std::int64_t x = patch.box.min[0]; x <= patch.box.max[0]; ++x)
        (*voxels)[static_cast<std::size_t>((z * dims[1] + y) * dims[0] + x)] = patch.voxels[o++];
  return core::LabelMap(std::move(voxels).value());
}

int writeSegmentation(const std::string& output, const core::Geometry& g, const core::LabelPatch& patch,
                      const inference::EngineInfo& engine, double seconds) {
  auto placed = labelsOnGrid(g, patch, engine.id);
  if (!placed) return fileError(placed.error());
  const core::LabelMap& labels = *placed;
  if (core::Status s = io::writeLabelFile(output, labels); !s) return fileError(s.error());
  const core::LabelTable names = engineLabelTable(engine);
  std::vector<std::size_t> counts(65536, 0);
  for (const auto v : patch.voxels) ++counts[v];
  std::printf("%s: %s in %.2f s on %s\n", output.c_str(), engine.id.c_str(), seconds,
              engine.device.empty() ? "cpu" : engine.device.c_str());
  core::LabelTable present;  // the names of what the file holds, written beside it
  bool any = false;
  for (std::size_t l = 1; l < counts.size(); ++l)
    if (counts[l]) {
      any = true;
      const auto label = static_cast<core::Label>(l);
      if (const core::LabelEntry* e = names.find(label)) (void)present.add(*e);
      std::printf("  %5zu  %-20s %10zu voxels\n", l, io::labelDisplayName(names, label).c_str(), counts[l]);
    }
  // An empty result is written (it is the engine's answer) but never silently: a cohort run must be able to tell.
  if (!any) {
    std::printf("  (no labelled voxels)\n");
    std::fprintf(stderr, "warning: %s: %s found nothing: every voxel is background\n", output.c_str(), engine.id.c_str());
  }
  // The names go beside the map (`<stem>.label`), so the window and `info --labels` show "bone", not "label 21".
  if (!present.empty()) {
    auto beside = io::writeLabelTableBeside(output, present, "engine " + engine.id);
    if (beside) std::printf("  names in %s\n", beside->string().c_str());
    else std::fprintf(stderr, "warning: %s\n", beside.error().describe().c_str());
  }
  return 0;
}

}  // namespace delineate::app::cli
