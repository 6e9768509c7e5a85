#pragma once
// io/models' own helpers, shared by model_store.cpp and model_download.cpp.

#include <string>

#include "core/error.h"
#include "io/models/model_store.h"

namespace delineate::io::models_detail {

std::string cacheOrDefault(const std::string& cache);
std::string lowerCase(std::string text);
// Empty, or 64 hexadecimal digits; else an error naming `what`.
core::Status checkSha256Text(const std::string& what, const std::string& value);
// NAME/model.json, written atomically, owner-only (the folder too).
core::Status writeRecord(const std::string& cache, const CachedModel& model);

}  // namespace delineate::io::models_detail
