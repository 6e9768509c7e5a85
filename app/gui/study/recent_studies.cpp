#include "app/gui/study/recent_studies.h"

#include <QSettings>
#include <QStringList>
#include <QVariantMap>

#include "app/gui/study/study_document.h"
#include "io/studies/study_store.h"

namespace delineate::app::gui {

namespace {

constexpr int kRecentStudies = 10;

bool fromShareCache(const StudyDocument& document) {
  return document.source().startsWith(QString::fromStdString(io::userCacheFolder()) + "/studies/");
}

}  // namespace

QString recentEntryOf(const StudyDocument& document) {
  if (!document.hasStudy()) return {};
  const ShareTarget& t = document.shareTarget();
  if (fromShareCache(document) && !t.root.isEmpty() && !t.study.isEmpty() && !t.series.isEmpty())
    return "share:" + t.root + "#" + t.study + "/" + t.series;
  return document.source();
}

QString shareLabelSetLocation(const QString& root, const QString& study, const QString& labelSet) {
  return "share:" + root + "#" + study + "/" + labelSet;
}

std::optional<ShareLabelSet> parseShareLabelSet(const QString& location) {
  if (!location.startsWith("share:")) return std::nullopt;
  const qsizetype hash = location.lastIndexOf('#');
  if (hash < 6) return std::nullopt;
  const QStringList parts = location.mid(hash + 1).split('/');
  if (parts.size() != 2 || parts[0].isEmpty() || parts[1].isEmpty()) return std::nullopt;
  return ShareLabelSet{location.mid(6, hash - 6), parts[0], parts[1]};
}

void rememberRecentLabels(const StudyDocument& document, const QString& location) {
  QString entry = recentEntryOf(document);
  if (entry.isEmpty() || location.isEmpty()) return;
  QSettings settings;
  QStringList recent = settings.value("recentStudies").toStringList();
  QVariantMap labels = settings.value("recentLabels").toMap();
  if (entry.startsWith("share:")) {
    // The share study's entries with and without a label set are one study: the set its labels went to is named.
    for (qsizetype i = recent.size() - 1; i >= 0; --i)
      if (recent[i] == entry || recent[i].startsWith(entry + "/")) {
        labels.remove(recent[i]);
        recent.removeAt(i);
      }
    const ShareTarget& t = document.shareTarget();
    if (const auto set = parseShareLabelSet(location); set && set->root == t.root && set->study == t.study)
      entry += "/" + set->labelSet;
  } else {
    recent.removeAll(entry);
  }
  recent.prepend(entry);
  while (recent.size() > kRecentStudies) labels.remove(recent.takeLast());
  labels.insert(entry, location);
  settings.setValue("recentStudies", recent);
  settings.setValue("recentLabels", labels);
}

QString recentLabelsOf(const QString& entry) { return QSettings().value("recentLabels").toMap().value(entry).toString(); }

}  // namespace delineate::app::gui
