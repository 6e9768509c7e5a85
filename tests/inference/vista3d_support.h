#pragma once
// The parity reference's tiny VISTA-3D (width 8), loaded for a test.
#include <catch2/catch.hpp>

#include <filesystem>
#include <memory>

#include "inference/vista3d/checkpoint_reader.h"
#include "inference/vista3d/network.h"

namespace delineate::test {

inline std::unique_ptr<inference::vista3d::Vista3dModel> loadVista3d(const std::filesystem::path& checkpoint) {
  auto ck = inference::vista3d::readCheckpoint(checkpoint.string());
  REQUIRE(ck.ok());
  auto model = inference::vista3d::Vista3dModel::load(*ck);
  REQUIRE(model.ok());
  return std::move(model).value();
}

}  // namespace delineate::test
