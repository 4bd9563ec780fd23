(** * The steps of a file-order run with failures (spec/graph.rst, section 3).

    [Errors.erun_fuel] returns only the end of a run: the final state, or
    [Failed i]. The reference runner ([Extract.v]) also prints the state
    after every firing, so that a differential test can compare
    [sonnx.model.semantics.fire], step by step, with the model up to the
    operation that fails. [etrace_fuel] is [erun_fuel] that also returns
    those steps; [error_trace_correct] shows that its end is [erun_fuel]'s,
    that each step fires the first executable operation in file order
    (section 3.5's [FileOrder]) and succeeds with the state it lists, and
    that a failure is the failure of the first executable operation of the
    last state listed. The printed steps are therefore the model's, not a
    replay by the driver. *)

From Coq Require Import List.
From SONNX Require Import Semantics Termination Errors.
Import ListNotations.

Section ErrorTrace.

Context {V : Type}.

Variable pinterp : nat -> list (option V) -> list (option V) -> option (list V).
Variable g : graph.

Local Notation state := (@state V).
Local Notation efire := (efire pinterp g).
Local Notation erun_fuel := (erun_fuel pinterp g).

(** [erun_fuel], with the operation fired and the state after it for every
    firing that succeeded, in firing order. *)
Fixpoint etrace_fuel (fuel : nat) (s : state) : list (nat * state) * estate :=
  match fuel with
  | 0 => ([], Running s)
  | S f =>
      match next g s with
      | Some i =>
          match efire s i with
          | Running t => let r := etrace_fuel f t in ((i, t) :: fst r, snd r)
          | Failed j => ([], Failed j)
          end
      | None => ([], Running s)
      end
  end.

(** Each listed step fires the first executable operation of the state
    before it, which succeeds and gives the listed state. *)
Fixpoint file_order_steps (s : state) (tr : list (nat * state)) : Prop :=
  match tr with
  | [] => True
  | (i, t) :: rest => next g s = Some i /\ efire s i = Running t /\ file_order_steps t rest
  end.

(** The state after the listed steps. *)
Fixpoint after (s : state) (tr : list (nat * state)) : state :=
  match tr with
  | [] => s
  | (_, t) :: rest => after t rest
  end.

(** How a run listed by [tr] from [s] ends in [e]: in the last listed state,
    or by the failure of the first executable operation there. *)
Definition trace_end (s : state) (tr : list (nat * state)) (e : estate) : Prop :=
  match e with
  | Running u => u = after s tr
  | Failed i => next g (after s tr) = Some i /\ efire (after s tr) i = Failed i
  end.

Lemma etrace_fuel_end : forall fuel s, snd (etrace_fuel fuel s) = erun_fuel fuel s.
Proof.
  induction fuel as [| f IH]; intros s; simpl; [reflexivity |].
  destruct (next g s) as [i |]; [| reflexivity].
  destruct (efire s i) as [t | j]; simpl; [apply IH | reflexivity].
Qed.

Lemma etrace_fuel_steps : forall fuel s, file_order_steps s (fst (etrace_fuel fuel s)).
Proof.
  induction fuel as [| f IH]; intros s; simpl; [exact I |].
  destruct (next g s) as [i |] eqn:En; [| exact I].
  destruct (efire s i) as [t | j] eqn:Ef; simpl; [| exact I].
  split; [exact En | split; [exact Ef | apply IH]].
Qed.

Lemma etrace_fuel_trace_end : forall fuel s,
  trace_end s (fst (etrace_fuel fuel s)) (snd (etrace_fuel fuel s)).
Proof.
  induction fuel as [| f IH]; intros s; simpl; [reflexivity |].
  destruct (next g s) as [i |] eqn:En; [| reflexivity].
  destruct (efire s i) as [t | j] eqn:Ef; simpl; [apply IH |].
  rewrite (efire_failed pinterp g s i j Ef) in Ef |- *. split; assumption.
Qed.

(** The steps the runner prints are the model's: [etrace_fuel] ends where
    [erun_fuel] ends, every listed firing is the file-order firing of the
    model and succeeds with the listed state, and a failure is the failure
    of the first executable operation after the last listed step. *)
Theorem error_trace_correct : forall fuel s,
  snd (etrace_fuel fuel s) = erun_fuel fuel s /\
  file_order_steps s (fst (etrace_fuel fuel s)) /\
  trace_end s (fst (etrace_fuel fuel s)) (snd (etrace_fuel fuel s)).
Proof.
  intros fuel s.
  split; [apply etrace_fuel_end |].
  split; [apply etrace_fuel_steps | apply etrace_fuel_trace_end].
Qed.

End ErrorTrace.

Print Assumptions error_trace_correct.
