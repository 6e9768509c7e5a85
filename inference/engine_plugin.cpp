#include "inference/engine_plugin.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>

namespace delineate::inference {

namespace {

constexpr const char* kPluginFile = "libdelineate_vista3d_plugin.so";

struct Loaded {
  const Vista3dPluginApi* api = nullptr;
  core::Error error;
};

// Opened once and never closed: engines made by the plugin live in its code.
const Loaded& plugin() {
  static Loaded loaded;
  static std::once_flag once;
  std::call_once(once, [] {
    std::string tried;
    for (const std::string& path : vista3dPluginCandidates()) {
      if (!std::filesystem::exists(path)) {
        tried += (tried.empty() ? "" : ", ") + path;
        continue;
      }
      // RTLD_LOCAL: LibTorch and what it drags in stay out of the program's global symbol scope.
      void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!handle) {
        const char* why = dlerror();
        loaded.error = {core::ErrorCode::ReadFailed, path, std::string("cannot load the VISTA-3D plugin: ") + (why ? why : "?")};
        return;
      }
      using Entry = const Vista3dPluginApi* (*)();
      auto entry = reinterpret_cast<Entry>(dlsym(handle, kVista3dPluginSymbol));
      const Vista3dPluginApi* api = entry ? entry() : nullptr;
      if (!api || api->version != kVista3dPluginApiVersion || !api->selectEngine || !api->setFileSource) {
        loaded.error = {core::ErrorCode::Unsupported, path, "not a VISTA-3D plugin of this version"};
        return;
      }
      loaded.api = api;
      return;
    }
    loaded.error = {core::ErrorCode::NotFound, kPluginFile,
                    "VISTA-3D is not available in this build (no plugin at " + tried + "; LibTorch was not found when it was built)"};
  });
  return loaded;
}

}  // namespace

std::vector<std::string> vista3dPluginCandidates() {
  std::vector<std::string> out;
  if (const char* env = std::getenv("DELINEATE_VISTA3D_PLUGIN"); env && *env) out.emplace_back(env);
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    out.push_back((exe.parent_path() / kPluginFile).string());
#ifdef DELINEATE_PLUGIN_DIR
    out.push_back((exe.parent_path().parent_path() / DELINEATE_PLUGIN_DIR / kPluginFile).string());
#endif
  }
#if defined(DELINEATE_VISTA3D_PLUGIN_BUILD_PATH) && defined(DELINEATE_BUILD_ROOT)
  // The build tree's copy, only for a program running from that build tree: an installed program never loads a
  // library from a build folder, which on another machine anyone might have made.
  const std::filesystem::path root = std::filesystem::weakly_canonical(DELINEATE_BUILD_ROOT, ec);
  if (!ec && !exe.empty() && exe.string().rfind(root.string() + "/", 0) == 0)
    out.emplace_back(DELINEATE_VISTA3D_PLUGIN_BUILD_PATH);
#endif
  return out;
}

core::Result<EngineChoice> selectEngineViaPlugin(const EngineSelection& selection) {
  if (selection.checkpoint.empty()) {
    EngineChoice choice;
    choice.engine = createEngine("classic");
    choice.why = "classic engine: no VISTA-3D checkpoint is configured";
    choice.reason = EngineChoice::Reason::NoCheckpoint;
    return choice;
  }
  const Loaded& p = plugin();
  if (!p.api) return p.error;
  p.api->setFileSource(core::fileSource());
  return p.api->selectEngine(selection);
}

}  // namespace delineate::inference
