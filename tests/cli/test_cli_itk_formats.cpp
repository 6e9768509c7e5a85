// The formats read through ITK (GIPL, Analyze 7.5, VTK legacy), end to end through delineate-cli.

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "io/volume/image_file.h"
#include "tests/common/byte_support.h"
#include "tests/common/test_support.h"

using namespace delineate::test;

#include "tests/cli/cli_runner.h"

namespace {

// A 4 x 3 x 2 GIPL of int16 (type 15), 0.75 x 1.25 x 2.5 mm, origin (5, -7, 11.5); values i - 10.
std::vector<std::uint8_t> giplFile() {
  std::vector<std::uint8_t> h(256, 0);
  const std::uint16_t dims[4] = {4, 3, 2, 1};
  for (std::size_t i = 0; i < 4; ++i) put<std::uint16_t>(h, 2 * i, dims[i], true);
  put<std::uint16_t>(h, 8, 15, true);
  const float pixdim[4] = {0.75f, 1.25f, 2.5f, 1.0f};
  for (std::size_t i = 0; i < 4; ++i) put<float>(h, 10 + 4 * i, pixdim[i], true);
  const double origin[3] = {5.0, -7.0, 11.5};
  for (std::size_t i = 0; i < 3; ++i) put<double>(h, 204 + 8 * i, origin[i], true);
  put<std::uint32_t>(h, 252, 0xefffe9b0u, true);
  std::vector<std::uint8_t> data(24 * 2);
  for (std::size_t i = 0; i < 24; ++i) put<std::int16_t>(data, 2 * i, static_cast<std::int16_t>(int(i) - 10), true);
  return concat(h, data);
}

}  // namespace

TEST_CASE("info reads a GIPL file: ITK-SNAP's test data format", "[cli]") {
  ScratchDir dir("cli-gipl");
  const std::string p = (dir / "snap.gipl").string();
  writeBytes(p, giplFile());
  const Run r = runCli("info " + quoted(p));
  INFO(r.out);
  REQUIRE(r.exitCode == 0);
  CHECK(r.out.find("4 x 3 x 2 voxels") != std::string::npos);
  CHECK(r.out.find("0.7500 x 1.2500 x 2.5000 mm") != std::string::npos);

  // A damaged one is a file error naming it.
  const std::string cut = (dir / "cut.gipl").string();
  auto bytes = giplFile();
  bytes.resize(200);
  writeBytes(cut, bytes);
  const Run bad = runCli("info " + quoted(cut));
  INFO(bad.out);
  CHECK(bad.exitCode == 1);
  CHECK(bad.out.find(cut) != std::string::npos);
}

TEST_CASE("convert turns a VTK legacy file into NIfTI with its geometry and values", "[cli]") {
  ScratchDir dir("cli-vtk");
  const std::string in = (dir / "grid.vtk").string();
  std::string text =
      "# vtk DataFile Version 3.0\nfrom a simulation\nBINARY\nDATASET STRUCTURED_POINTS\nDIMENSIONS 4 3 2\n"
      "SPACING 0.5 0.5 3\nORIGIN -1 2 -3\nPOINT_DATA 24\nSCALARS density float 1\nLOOKUP_TABLE default\n";
  std::vector<std::uint8_t> data(24 * 4);
  for (std::size_t i = 0; i < 24; ++i) put<float>(data, 4 * i, static_cast<float>(i) * 0.5f, true);
  writeBytes(in, concat(bytesOf(text), data));
  const std::string out = (dir / "grid.nii.gz").string();
  const Run r = runCli("convert " + quoted(in) + " " + quoted(out));
  INFO(r.out);
  REQUIRE(r.exitCode == 0);
  auto back = delineate::io::readImageFile(out);
  REQUIRE(back.ok());
  const auto& g = back->geometry();
  CHECK(g.dimensions() == delineate::core::Size3{4, 3, 2});
  CHECK(g.spacingMm()[2] == Approx(3.0));
  CHECK(g.originLps()[0] == Approx(-1.0));
  CHECK(g.originLps()[1] == Approx(2.0));
  CHECK(g.originLps()[2] == Approx(-3.0));
  for (std::size_t i = 0; i < 24; ++i) CHECK(back->buffer()[i] == static_cast<float>(i) * 0.5f);

  // GIPL, Analyze and VTK are read only: as OUTPUT they are a usage error naming what can be written.
  const Run refused = runCli("convert " + quoted(in) + " " + quoted((dir / "x.gipl").string()));
  INFO(refused.out);
  CHECK(refused.exitCode == 2);
  CHECK(refused.out.find(".nii, .nii.gz, .nrrd, .nhdr, .mha or .mhd") != std::string::npos);
}
