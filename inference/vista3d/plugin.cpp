// The VISTA-3D plugin's one exported symbol (inference/engine_plugin.h): the LibTorch engine for programs that do
// not link LibTorch themselves.
#include <torch/version.h>

#include "inference/engine.h"
#include "inference/engine_plugin.h"
#include "inference/vista3d/network.h"

namespace {

std::string describeBuild() {
  return std::string("LibTorch ") + TORCH_VERSION + ", CUDA: " + (delineate::inference::vista3d::cudaAvailable() ? "yes" : "no");
}

}  // namespace

extern "C" __attribute__((visibility("default"))) const delineate::inference::Vista3dPluginApi*
delineate_vista3d_plugin_api() {
  static const delineate::inference::Vista3dPluginApi api{delineate::inference::kVista3dPluginApiVersion,
                                                          &delineate::inference::selectEngine, &describeBuild,
                                                          &delineate::core::setFileSource};
  return &api;
}
