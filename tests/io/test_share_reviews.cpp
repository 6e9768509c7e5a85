// Review state of label-set revisions (issue 24, item 4): submitted, then approved or sent back by another user; the
// rules hold against racing reviewers in other processes; a damaged record is named, never guessed around.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "io/share/share_reviews.h"
#include "tests/common/test_support.h"

using namespace delineate;
using test::ScratchDir;
namespace fs = std::filesystem;
using io::ReviewAction;
using io::ReviewState;

namespace {

struct Fixture {
  ScratchDir dir;
  io::ShareStore store;
  io::LabelSetRevisions set;
  explicit Fixture(const char* name)
      : dir(name),
        store(io::ShareStore::initialize(dir.path().string()).value()),
        set(io::LabelSetRevisions::open(store, "mouse-7", "atlas").value()) {
    const std::vector<std::uint8_t> bytes(500, 7);
    REQUIRE(set.save(bytes.data(), bytes.size(), "ann", 0, "first").ok());
    REQUIRE(set.save(bytes.data(), bytes.size(), "ann", 1, "second").ok());
  }
};

std::string refusal(const core::Result<io::ReviewRecord>& r) {
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == core::ErrorCode::InvalidArgument);
  return r.error().describe();
}

}  // namespace

TEST_CASE("reviews: submit, send back with a comment, resubmit, approve by another user", "[share][share-suite]") {
  Fixture f("reviews-flow");
  const io::LabelSetReviews reviews(f.set);
  auto none = reviews.review(1);
  REQUIRE(none.ok());
  CHECK(none->state == ReviewState::None);
  CHECK(none->history.empty());

  CHECK(refusal(reviews.record(1, ReviewAction::Approve, "bob", "")).find("never submitted") != std::string::npos);
  CHECK(refusal(reviews.record(7, ReviewAction::Submit, "ann", "")).find("no such revision") != std::string::npos);
  REQUIRE(reviews.record(1, ReviewAction::Submit, "ann", "ready").ok());
  CHECK(refusal(reviews.record(1, ReviewAction::Submit, "ann", "")).find("already submitted") != std::string::npos);
  // The author cannot approve her own revision, nor can a submitter approve what he submitted.
  CHECK(refusal(reviews.record(1, ReviewAction::Approve, "ann", "")).find("ann wrote this revision") != std::string::npos);
  CHECK(refusal(reviews.record(1, ReviewAction::Reject, "bob", "")).find("comment") != std::string::npos);
  REQUIRE(reviews.record(1, ReviewAction::Reject, "bob", "the hippocampus spills into the ventricle").ok());
  auto rejected = reviews.review(1);
  REQUIRE(rejected.ok());
  CHECK(rejected->state == ReviewState::Rejected);
  CHECK(rejected->last()->comment == "the hippocampus spills into the ventricle");
  REQUIRE(reviews.record(1, ReviewAction::Submit, "dan", "resubmitted after a fix").ok());
  CHECK(refusal(reviews.record(1, ReviewAction::Approve, "dan", "")).find("dan submitted") != std::string::npos);
  auto approved = reviews.record(1, ReviewAction::Approve, "carol", "");
  REQUIRE(approved.ok());
  CHECK(approved->sequence == 4);
  CHECK_FALSE(approved->host.empty());
  CHECK_FALSE(approved->time.empty());
  CHECK(refusal(reviews.record(1, ReviewAction::Submit, "ann", "")).find("approved already") != std::string::npos);
  CHECK(refusal(reviews.record(1, ReviewAction::Reject, "bob", "late")).find("approved") != std::string::npos);

  auto all = reviews.all();
  REQUIRE(all.ok());
  REQUIRE(all->size() == 1);  // revision 2 was never reviewed
  const io::RevisionReview& r1 = all->front();
  CHECK(r1.revision == 1);
  CHECK(r1.state == ReviewState::Approved);
  REQUIRE(r1.history.size() == 4);
  const std::vector<ReviewAction> steps{ReviewAction::Submit, ReviewAction::Reject, ReviewAction::Submit,
                                        ReviewAction::Approve};
  for (std::size_t i = 0; i < steps.size(); ++i) {
    CHECK(r1.history[i].action == steps[i]);
    CHECK(r1.history[i].sequence == static_cast<int>(i) + 1);
  }
  CHECK(r1.history[0].user == "ann");
  CHECK(r1.history[3].user == "carol");
  // The records are files of their own, never rewritten: the same history read by a fresh reader.
  const io::LabelSetReviews again(f.set);
  auto reread = again.review(1);
  REQUIRE(reread.ok());
  CHECK(reread->history.size() == 4);
}

TEST_CASE("reviews: reviewers in two processes acting at once: exactly one decision stands", "[share][share-suite]") {
  Fixture f("reviews-race");
  const io::LabelSetReviews reviews(f.set);
  REQUIRE(reviews.record(2, ReviewAction::Submit, "ann", "").ok());
  // The child approves, the parent sends back, each trying again and again; whoever claims first decides, the other
  // is refused by the rule it then reads (no longer submitted).
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    const io::LabelSetReviews mine(f.set);
    auto r = mine.record(2, ReviewAction::Approve, "bob", "");
    _exit(r.ok() ? 0 : (r.error().code == core::ErrorCode::InvalidArgument ? 3 : 1));
  }
  auto parent = reviews.record(2, ReviewAction::Reject, "carol", "needs the left fimbria");
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  const bool childWon = WEXITSTATUS(status) == 0;
  CHECK((WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 3));
  CHECK(childWon != parent.ok());  // one decision, never both
  auto r2 = reviews.review(2);
  REQUIRE(r2.ok());
  REQUIRE(r2->history.size() == 2);
  CHECK(r2->state == (childWon ? ReviewState::Approved : ReviewState::Rejected));
}

TEST_CASE("reviews: a damaged review record is an error naming its file", "[share][share-suite]") {
  Fixture f("reviews-damaged");
  const io::LabelSetReviews reviews(f.set);
  REQUIRE(reviews.record(1, ReviewAction::Submit, "ann", "").ok());
  const fs::path record = f.dir / "studies" / "mouse-7" / "labelsets" / "atlas" / "reviews" / "r000001-0001.json";
  REQUIRE(fs::exists(record));
  std::ofstream(record, std::ios::trunc) << "{\"revision\": 1, \"sequence\": 1, \"action\": \"approve";
  auto r = reviews.review(1);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().describe().find("r000001-0001.json") != std::string::npos);
  // And no step is recorded on top of a history that cannot be read.
  CHECK_FALSE(reviews.record(1, ReviewAction::Approve, "bob", "").ok());
  // Temporary files of an interrupted write are not records.
  std::ofstream(record.parent_path() / ".r000001-0002.json.tmp-0123456789abcdef") << "{";
  std::ofstream(record, std::ios::trunc) << "{\"revision\": 1, \"sequence\": 1, \"action\": \"submit\", \"user\": \"ann\"}";
  auto fixed = reviews.review(1);
  REQUIRE(fixed.ok());
  CHECK(fixed->state == ReviewState::Submitted);
  CHECK(fixed->history.size() == 1);
}
