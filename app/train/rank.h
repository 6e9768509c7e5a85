#pragma once
// delineate-train --rank (issue 26, "next case"): the share's studies that still need labels, ranked by how unsure a
// trained atlas network is of them, so an annotator labels the most useful one next (active learning). A study is a
// candidate when it has an image series and no approved revision of the label set (a draft or a rejected revision
// still counts as unlabelled; its newest revision is named). Each candidate's image series (the one with the most
// voxels) is fetched (verified, into the
// series cache), segmented by the network, and scored by the mean normalised entropy of the voxels the network labels
// or hesitates about (inference::training::UncertaintyStats); the most uncertain first, ties by study name.

#include <atomic>
#include <string>
#include <vector>

namespace delineate::app::train {

struct RankOptions {
  std::string model;      // a checkpoint file or a share reference (share:ROOT#MODEL[@REV])
  std::string share;      // the share whose studies are ranked
  std::string labelSet;   // what "labelled" means: an approved revision of this set ("" : any label set at all)
  std::string dataset;    // without labelSet: the label set of this dataset's entries (the most common one)
  std::vector<std::string> studies;  // only these (default: every candidate)
  std::string device = "auto";
  int threads = 0;
  bool jsonLines = false;
};

// Prints one line per study as it is scored (JSON with jsonLines) and the ranking at the end; 0 when ranked (studies
// that could not be scored are named and left out), 1 on an error that stops it (the share, the model).
int runRanking(const RankOptions& options, const std::atomic<bool>& cancel);

}  // namespace delineate::app::train
