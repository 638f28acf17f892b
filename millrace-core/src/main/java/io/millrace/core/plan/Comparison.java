package io.millrace.core.plan;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What changes from an older plan of a job to its plan now, and which of those changes orphan
 * state: a store renamed or removed (its local files and changelog are left behind, its
 * successor starts empty), a store's changelog, engine, serdes or partitions changed (what it
 * holds is no longer found or read as it was), an internal stream renamed, removed or
 * repartitioned (records the job wrote there and has not read yet are lost or meet the wrong
 * task). Everything else (an operator added, an output renamed) is listed as a note.
 *
 * @param orphans one line per change that orphans state, saying what and why
 * @param notes one line per other change
 */
public record Comparison(List<String> orphans, List<String> notes) {
  public Comparison {
    orphans = List.copyOf(orphans);
    notes = List.copyOf(notes);
  }

  /** Compares the plan {@code now} with the older {@code before}. */
  public static Comparison of(Outline before, Outline now) {
    List<String> orphans = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    if (!before.job().equals(now.job())) {
      notes.add("job.name changed from " + before.job() + " to " + now.job() + " (a job's "
          + "checkpoints and default changelog and repartition names follow it)");
    }
    stores(before, now, orphans, notes);
    internal(before, now, orphans, notes);
    streams(before, now, notes);
    operators(before, now, notes);
    return new Comparison(orphans, notes);
  }

  /** Whether the change orphans any state. */
  public boolean orphansState() {
    return !orphans.isEmpty();
  }

  private static void stores(Outline before, Outline now, List<String> orphans,
      List<String> notes) {
    Map<String, Outline.Store> old = byName(before.stores());
    Map<String, Outline.Store> current = byName(now.stores());
    for (Outline.Store was : old.values()) {
      Outline.Store is = current.get(was.name());
      String what = "store " + was.name() + operatorOf(before, was.name());
      if (is == null) {
        String successor = renamedTo(before, now, was.name(), current, old);
        orphans.add(what + (successor == null ? " is gone"
            : " is renamed to " + successor + ", which starts empty") + ": its state "
            + (was.changelog() == null ? "(its local files)" : "(its local files and changelog "
            + was.changelog() + ")") + " is left behind");
        continue;
      }
      if (!Objects.equals(was.changelog(), is.changelog())) {
        orphans.add(what + ": its changelog changes from " + or(was.changelog()) + " to "
            + or(is.changelog()) + (was.changelog() == null ? ""
            : ": a task restored from the new one starts without what the old one holds"));
      }
      if (was.partitions() != is.partitions()) {
        orphans.add(what + ": its partitions (one per task) change from " + was.partitions()
            + " to " + is.partitions() + ": task k keeps the keys of input partition k, so its "
            + "keys would be in other tasks than their state");
      }
      if (!was.factory().equals(is.factory())) {
        orphans.add(what + ": its engine changes from " + was.factory() + " to " + is.factory()
            + ": the new one does not read the old one's files");
      }
      if (!was.keySerde().equals(is.keySerde()) || !was.valueSerde().equals(is.valueSerde())) {
        orphans.add(what + ": its serdes change (key " + was.keySerde() + " -> "
            + is.keySerde() + ", value " + was.valueSerde() + " -> " + is.valueSerde()
            + "): what it holds was written with the old ones");
      }
    }
    for (Outline.Store is : current.values()) {
      if (!old.containsKey(is.name())) {
        notes.add("store " + is.name() + operatorOf(now, is.name()) + " is new: it starts empty");
      }
    }
  }

  private static void internal(Outline before, Outline now, List<String> orphans,
      List<String> notes) {
    Map<String, Outline.Stream> old = streamsOf(before, Outline.Role.INTERNAL);
    Map<String, Outline.Stream> current = streamsOf(now, Outline.Role.INTERNAL);
    for (Outline.Stream was : old.values()) {
      Outline.Stream is = current.get(was.id());
      String what = "internal stream " + was.id() + " (" + was.system() + " " + was.physical()
          + ")";
      if (is == null) {
        orphans.add(what + " is gone: records the job wrote to it and has not read yet are "
            + "left there");
      } else if (!is.system().equals(was.system()) || !is.physical().equals(was.physical())) {
        orphans.add(what + " moves to " + is.system() + " " + is.physical() + ": records the "
            + "job wrote to the old one and has not read yet are left there");
      } else if (is.partitions() != was.partitions()) {
        orphans.add(what + ": its partitions change from " + was.partitions() + " to "
            + is.partitions() + ": records written by key to the old partitions would be read "
            + "by tasks that do not hold their keys' state");
      }
    }
    for (Outline.Stream is : current.values()) {
      if (!old.containsKey(is.id())) {
        notes.add("internal stream " + is.id() + " (" + is.system() + " " + is.physical()
            + ") is new");
      }
    }
  }

  private static void streams(Outline before, Outline now, List<String> notes) {
    for (Outline.Role role : List.of(Outline.Role.INPUT, Outline.Role.OUTPUT)) {
      Map<String, Outline.Stream> old = streamsOf(before, role);
      Map<String, Outline.Stream> current = streamsOf(now, role);
      old.forEach((id, was) -> {
        Outline.Stream is = current.get(id);
        if (is == null) {
          notes.add(role.word() + " " + id + " is gone");
        } else if (!is.equals(was)) {
          notes.add(role.word() + " " + id + " changes from " + was.system() + " "
              + was.physical() + " (" + was.partitions() + " partitions) to " + is.system() + " "
              + is.physical() + " (" + is.partitions() + " partitions)");
        }
      });
      current.keySet().stream().filter(id -> !old.containsKey(id))
          .forEach(id -> notes.add(role.word() + " " + id + " is new"));
    }
    if (before.tasks() != now.tasks()) {
      notes.add("the job's tasks change from " + before.tasks() + " to " + now.tasks());
    }
  }

  private static void operators(Outline before, Outline now, List<String> notes) {
    Map<String, Outline.Operator> old = new LinkedHashMap<>();
    before.operators().forEach(o -> old.put(o.path(), o));
    Map<String, Outline.Operator> current = new LinkedHashMap<>();
    now.operators().forEach(o -> current.put(o.path(), o));
    old.forEach((path, was) -> {
      Outline.Operator is = current.get(path);
      if (is == null) {
        notes.add("operator " + was.kind() + " at " + path + named(was) + " is gone");
      } else if (!Objects.equals(was.name(), is.name()) || !was.kind().equals(is.kind())) {
        notes.add("operator " + was.kind() + " at " + path + named(was) + " is now "
            + is.kind() + named(is));
      }
    });
    current.forEach((path, is) -> {
      if (!old.containsKey(path)) {
        notes.add("operator " + is.kind() + " at " + path + named(is) + " is new");
      }
    });
  }

  /**
   * The store {@code name} was probably renamed to, or null: a new store whose operator is of
   * the same kind at the same place, the place being its path with the old name read as the new
   * (a DSL path holds the names of the operator and those before it); else the one new store
   * when exactly one store is gone.
   */
  private static String renamedTo(Outline before, Outline now, String name,
      Map<String, Outline.Store> current, Map<String, Outline.Store> old) {
    List<String> added = current.keySet().stream().filter(s -> !old.containsKey(s)).toList();
    for (Outline.Operator was : before.operators()) {
      if (!was.stores().contains(name)) {
        continue;
      }
      for (String store : added) {
        for (Outline.Operator is : now.operators()) {
          if (is.stores().contains(store) && is.kind().equals(was.kind())
              && is.path().equals(was.path().replace(name, store))) {
            return store;
          }
        }
      }
    }
    long gone = old.keySet().stream().filter(s -> !current.containsKey(s)).count();
    return gone == 1 && added.size() == 1 ? added.get(0) : null;
  }

  private static String operatorOf(Outline outline, String store) {
    for (Outline.Operator o : outline.operators()) {
      if (o.stores().contains(store)) {
        return " (" + o.kind() + " at " + o.path() + ")";
      }
    }
    return "";
  }

  private static String named(Outline.Operator operator) {
    return operator.name() == null ? "" : " named " + operator.name();
  }

  private static String or(String changelog) {
    return changelog == null ? "none" : changelog;
  }

  private static Map<String, Outline.Store> byName(List<Outline.Store> stores) {
    Map<String, Outline.Store> map = new LinkedHashMap<>();
    stores.forEach(s -> map.put(s.name(), s));
    return map;
  }

  private static Map<String, Outline.Stream> streamsOf(Outline outline, Outline.Role role) {
    Map<String, Outline.Stream> map = new LinkedHashMap<>();
    outline.streams().stream().filter(s -> s.role() == role).forEach(s -> map.put(s.id(), s));
    return map;
  }
}
