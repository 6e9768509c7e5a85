#pragma once
// A list read from the share on the window's workers, for a dock's chooser (the AI dock's trained models, the
// Training dock's datasets): the share is opened and read off the GUI thread, so a slow or hung mount never freezes
// the window, and the answer comes back on the GUI thread. No share set: an empty list, not an error.

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrent>

#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/error.h"
#include "io/share/share_store.h"

namespace delineate::app::gui {

// Runs `list(const io::ShareStore&)` (returning core::Result<std::vector<T>>) on `workers` for the share at `root`,
// then `done(const core::Result<std::vector<T>>&)` on `owner`'s thread; nothing after `owner` is gone.
template <class List, class Done>
void listShareOnWorker(QObject* owner, QThreadPool& workers, const QString& root, List list, Done done) {
  using Listed = decltype(list(std::declval<const io::ShareStore&>()));
  using Value = std::decay_t<decltype(std::declval<Listed&>().value())>;
  using Shared = std::shared_ptr<Listed>;
  auto* watcher = new QFutureWatcher<Shared>(owner);
  QObject::connect(watcher, &QFutureWatcher<Shared>::finished, owner, [watcher, done = std::move(done)] {
    const Shared listed = watcher->result();
    watcher->deleteLater();
    done(*listed);
  });
  watcher->setFuture(QtConcurrent::run(&workers, [root, list = std::move(list)] {
    if (root.isEmpty()) return std::make_shared<Listed>(Value{});
    auto store = io::ShareStore::open(root.toStdString());
    if (!store) return std::make_shared<Listed>(store.error());
    return std::make_shared<Listed>(list(*store));
  }));
}

}  // namespace delineate::app::gui
