#pragma once
// VISTA-3D as a run-time plugin, for programs that must not link LibTorch: the window (Debian's LibTorch pulls in
// OpenCV's highgui and with it Qt 5, whose libraries must not meet the window's Qt 6 in one process unless VISTA-3D
// is actually used) and any program that wants to start fast (LibTorch costs 0.34 s and 160 MB to load).
// libdelineate_vista3d_plugin.so holds the LibTorch engine and exports one C function returning this table; the
// loader below opens it only when a checkpoint is configured.

#include <string>

#include "core/error.h"
#include "core/file_source.h"
#include "inference/engine.h"

namespace delineate::inference {

// 2: EngineChoice carries its reason; 3: classProbability; 4: setFileSource
inline constexpr int kVista3dPluginApiVersion = 4;
inline constexpr const char* kVista3dPluginSymbol = "delineate_vista3d_plugin_api";

struct Vista3dPluginApi {
  int version = 0;
  core::Result<EngineChoice> (*selectEngine)(const EngineSelection& selection) = nullptr;
  std::string (*describeBuild)() = nullptr;  // "LibTorch 1.13.0, CUDA: no" and the like
  // The host's file source (core/file_source.h) for the plugin's own copy of core, so its checkpoint readers read
  // sealed copies as the host does; set before each selectEngine.
  void (*setFileSource)(std::shared_ptr<const core::FileSource> source) = nullptr;
};

// selectEngine (inference/engine.h) through the plugin: without a checkpoint the classic engine, and LibTorch is
// never loaded; with one, the plugin is opened (once per process) and decides. Errors: the plugin not found (a build
// without LibTorch) or unusable, naming the file; then those of selectEngine.
core::Result<EngineChoice> selectEngineViaPlugin(const EngineSelection& selection);

// Where the plugin is looked for: $DELINEATE_VISTA3D_PLUGIN, next to the running program, ../lib/<multiarch>/delineate/
// from it (where the packages install it), and the build tree's copy (only for a program in that build tree).
std::vector<std::string> vista3dPluginCandidates();

}  // namespace delineate::inference
