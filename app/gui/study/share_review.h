#pragma once
// Review in the window (issue 41, item 6): the open labels' share revision submitted for review, approved or sent back
// with a comment, as `delineate-cli share review` does (io/share/share_reviews.h decides what is allowed: a revision is
// approved or sent back only once submitted, never by its author or submitter; its refusal is said as it is). Each
// step is recorded on a worker (a hung share never freezes the window), audited, and the window title shows the new
// state (as it shows every opened revision's). The step is by the author of the preferences, asked for before the
// first one (SessionFiles::ensureAuthor).

#include <QObject>
#include <QString>

namespace delineate::app::gui {

class SessionFiles;
class StudyDocument;
class Workbench;

class ShareReview : public QObject {
  Q_OBJECT

 public:
  ShareReview(StudyDocument& document, SessionFiles& files, Workbench& bench, QObject* parent = nullptr);

  // On the revision the open labels are (their share target's base revision). False, with the reason said, when
  // there is none, the labels have unsaved edits (a review is of what is on the share), or the share refuses.
  bool submit();
  bool approve();
  // `comment`: what to change (needed); empty with dialogs on asks for it.
  bool sendBack(const QString& comment = {});

 Q_SIGNALS:
  // A step was recorded: what it was, as the status bar said it.
  void reviewed(const QString& text);

 private:
  bool record(int action, const QString& comment);

  StudyDocument& m_document;
  SessionFiles& m_files;
  Workbench& m_bench;
};

}  // namespace delineate::app::gui
