// VISTA-3D and the file's storage order. The bundle's preprocessing resamples to 1.5 mm in the stored axis order,
// anchored at voxel 0 (Spacingd), and only then turns the grid to RAS (Orientationd): a flipped axis anchored the
// 1.5 mm grid at the other end, the same grid only where the axis's extent is a multiple of 1.5 mm. Ours turns the
// image to RAS first (inference/vista3d/preprocess.h), so every order gives the same network input; here the clicks'
// object, mapped back to the original grid, must be the same voxels: on the parity reference's CT (3 mm voxels) with
// i and j swapped and reversed, and on the same voxels relabelled 2.9 x 2.8 x 3 mm (no extent a multiple of 1.5 mm)
// stored with x reversed.
#include <catch2/catch.hpp>

#include <algorithm>

#include "core/axis_order.h"
#include "inference/engine.h"
#include "inference/vista3d/network.h"
#include "io/volume/image_file.h"
#include "tests/common/storage_order_support.h"
#include "tests/common/test_support.h"

using namespace delineate;

namespace {

// The patch of an image stored in `order`, on the original grid `dims` (x fastest, 0 outside the patch).
std::vector<core::Label> onOriginalGrid(const core::LabelPatch& p, const core::Size3& dims, const core::AxisOrder& order) {
  std::vector<core::Label> out(static_cast<std::size_t>(dims[0] * dims[1] * dims[2]), 0);
  std::size_t o = 0;
  for (std::int64_t z = p.box.min[2]; z <= p.box.max[2]; ++z)
    for (std::int64_t y = p.box.min[1]; y <= p.box.max[1]; ++y)
      for (std::int64_t x = p.box.min[0]; x <= p.box.max[0]; ++x, ++o) {
        const core::Index3 s = core::sourceIndexOf(core::Index3{x, y, z}, dims, order);
        out[static_cast<std::size_t>((s[2] * dims[1] + s[1]) * dims[0] + s[0])] = p.voxels[o];
      }
  return out;
}

}  // namespace

TEST_CASE("vista3d storage order: clicks give the same object with axes swapped or reversed",
          "[vista3d][axis][data]") {
  auto pt = test::sharedFile("reference/vista3d/tiny_state_dict.pt");
  auto ct = test::sharedFile("reference/vista3d/pipeline/input_ct.nii.gz");
  if (!pt || !ct || !inference::vista3d::torchAvailable()) return;
  // The whole reference CT: the tiny model (not trained) finds no object on a crop small enough for one window.
  auto read = io::readImageFile(ct->string());
  REQUIRE(read.ok());
  inference::Vista3dEngineOptions options;
  options.roi = 64;
  options.device = "cpu";
  auto engine = inference::createVista3dEngine(pt->string(), options);
  REQUIRE(engine.ok());
  const bool relabelled = GENERATE(false, true);
  INFO((relabelled ? "voxels relabelled 2.9 x 2.8 x 3 mm" : "3 mm voxels"));
  const core::Geometry& rg = read->geometry();
  auto image = core::ImageVolume::create(core::Geometry(rg.dimensions(),
                                                        relabelled ? core::Vec3{2.9, 2.8, 3.0} : rg.spacingMm(),
                                                        rg.originLps(), rg.direction()))
                   .value();
  std::copy(read->data(), read->data() + read->size(), image.data());
  const auto& g = image.geometry();
  // The reference README's clicks (a positive and a negative one), as points in space.
  inference::SegmentationRequest request;
  request.points = {{g.indexToLps(core::Vec3{30, 40, 16}), true}, {g.indexToLps(core::Vec3{10, 50, 25}), false}};
  request.targetLabel = 1;
  auto expected = (*engine)->segment(image, request, nullptr);
  REQUIRE(expected.ok());
  const auto want = onOriginalGrid(*expected, g.dimensions(), core::AxisOrder{});
  CHECK(std::count(want.begin(), want.end(), core::Label{1}) > 0);
  // As stored (LPS) vs i and j swapped and both reversed (RAS, as most NIfTI files hold it, with the in-plane axes
  // exchanged). Each run takes about ten seconds on the CPU, so this one order stands for the 47 others.
  std::vector<core::AxisOrder> orders(1);
  if (relabelled) {
    orders[0].flip = {true, false, false};
  } else {
    orders[0].axis = {1, 0, 2};
    orders[0].flip = {true, true, false};
  }
  for (const auto& order : orders) {
    INFO("storage order " << test::describeOrder(order));
    const auto stored = core::reorderedVolume(image, order).value();
    auto got = (*engine)->segment(stored, request, nullptr);
    REQUIRE(got.ok());
    const auto back = onOriginalGrid(*got, g.dimensions(), order);
    std::size_t differ = 0;
    for (std::size_t i = 0; i < back.size(); ++i) differ += back[i] != want[i] ? 1 : 0;
    CHECK(differ == 0);
  }
}
