#pragma once
// File > Recent Studies remembers, with each study, where its labels were last saved or opened (issue 41, item 10:
// a study reopened without them looked like lost work): a share label set ("share:ROOT#STUDY/SET", reopened at its
// newest revision) or a label map file. An entry is how the study reopens: "share:ROOT#STUDY/SERIES[/SET]" for one
// opened from a share, "FOLDER #N" for a DICOM series, else the image file's path. Kept in the preferences
// ("recentStudies", "recentLabels").

#include <QString>

#include <optional>

namespace delineate::app::gui {

class StudyDocument;

// The open study's entry (empty without a study).
QString recentEntryOf(const StudyDocument& document);
// The open study's labels are now at `location` (a label file's path, or "share:ROOT#STUDY/SET"). A share study whose
// labels went into a label set of its own study has its entry name that set (it reopens with the set's newest
// revision); the entry moves to the top of the list.
void rememberRecentLabels(const StudyDocument& document, const QString& location);
// Where the labels of `entry` were last saved or opened; empty when nowhere known.
QString recentLabelsOf(const QString& entry);

struct ShareLabelSet {
  QString root, study, labelSet;
};
// "share:ROOT#STUDY/SET" (a location) parsed; nullopt for a file path.
std::optional<ShareLabelSet> parseShareLabelSet(const QString& location);
// "share:ROOT#STUDY/SET" for a label set.
QString shareLabelSetLocation(const QString& root, const QString& study, const QString& labelSet);

}  // namespace delineate::app::gui
