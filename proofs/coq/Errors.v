(** * Operators that fail (spec/graph.rst, section 3).

    [Semantics.v] gives every operator a total meaning. Here an operator may
    fail at run time (a kernel that raises, e.g. on a shape it does not
    support): the interpretation [pinterp] returns [None] for a failure.
    Giving a number of results that differs from the number of output
    entries is a failure too, as in the Python, where [_fire_into] raises
    [ValueError] then.

    Modelling choices, against [sonnx.model.semantics.run] and the compiled
    plan of [sonnx.execution.plan]:
    - An operation fails only when it fires, that is when it is executable:
      an operation that never becomes executable never fails (the plan's
      deferred binding errors behave the same way).
    - A failed firing ends the run at once in the error state [Failed i],
      which names the operation that failed (the Python raises an
      exception, whose message names the operation, and returns no state).
      Which operation fails first may depend on the scheduler when two
      executable operations would both fail, so the theorems are stated on
      the outcome: "fails" or "ends in this state" ([outcome_eq]), not on
      the name in [Failed].
    - Nothing else is modelled of the exception: the partial values a
      failing run computed are not observable, as in the Python.

    Under GRAPH-C1 and GRAPH-C1-SOURCES ([c1_assign]), every
    maximal run from the initial state fails, or none does and all end in
    the same state ([error_order_independence]); the outcome is a function
    of the inputs, initializers and captured values ([error_determinism]);
    the file-order runner with errors [erun_fuel] computes it
    ([error_runner_correct]). [ErrorCause.v] says which runs fail, and
    shows that GRAPH-C1 cannot be dropped. The proof reduces to [order_independence]:
    where the partial interpretation succeeds, a total one ([tinterp])
    agrees with it, and a value once defined is the same in every state a
    run reaches, so an operation fails in one run exactly when it fails,
    on the same arguments, in every other. *)

From Coq Require Import List Arith Lia Bool.
From SONNX Require Import Semantics Termination OrderIndependence.
Import ListNotations.

Section Errors.

Context {V : Type}.

(** Operation [i]'s results from its explicit arguments and the values of
    its implicit inputs, or [None] when the operator fails. *)
Variable pinterp : nat -> list (option V) -> list (option V) -> option (list V).
Variable g : graph.

Local Notation state := (@state V).

(** ** Firing with failure *)

(** A result list is accepted only when it has one value per output
    entry; otherwise the firing fails (the Python's count check). *)
Definition checked (o : operation) (r : option (list V)) : option (list V) :=
  match r with
  | Some rs => if Nat.eqb (length rs) (length (op_outputs o)) then Some rs else None
  | None => None
  end.

Definition eresults (s : state) (i : nat) (o : operation) : option (list V) :=
  checked o (pinterp i (args s o) (imps s o)).

(** The end of a run: a state, or the failure of an operation. *)
Inductive estate : Type :=
  | Running : state -> estate
  | Failed : nat -> estate.

(** Fire operation [i]: [Failed i] when its operator fails, otherwise the
    state of [Semantics.fire] with the results. *)
Definition efire (s : state) (i : nat) : estate :=
  match nth_error (g_ops g) i with
  | Some o =>
      match eresults s i o with
      | Some rs => Running (mkState (write (op_outputs o) rs (vals s)) (i :: fired s))
      | None => Failed i
      end
  | None => Running s
  end.

(** [erun s e]: a maximal run with failures from [s] ends in [e]. It stops
    in a state where nothing is executable, or at the first failed
    firing; the scheduler may choose any executable operation. *)
Inductive erun : state -> estate -> Prop :=
  | erun_end : forall s, maximal g s -> erun s (Running s)
  | erun_fail : forall s i, executable g s i -> efire s i = Failed i -> erun s (Failed i)
  | erun_fire : forall s i t e, executable g s i -> efire s i = Running t -> erun t e -> erun s e.

(** Two ends are the same outcome when both fail (whichever operation
    failed) or both are equivalent states. *)
Definition outcome_eq (e1 e2 : estate) : Prop :=
  match e1, e2 with
  | Running s1, Running s2 => st_eq s1 s2
  | Failed _, Failed _ => True
  | _, _ => False
  end.

(** What a caller observes: failure ([None]) or the values of the graph
    outputs. *)
Definition outcome (e : estate) : option (list (option V)) :=
  match e with
  | Running s => Some (outputs_of g s)
  | Failed _ => None
  end.

Lemma outcome_eq_trans : forall e1 e2 e3, outcome_eq e1 e2 -> outcome_eq e2 e3 -> outcome_eq e1 e3.
Proof.
  intros [s1 | i1] [s2 | i2] [s3 | i3]; simpl; try tauto. apply st_eq_trans.
Qed.

Lemma outcome_eq_outcome : forall e1 e2, outcome_eq e1 e2 -> outcome e1 = outcome e2.
Proof.
  intros [s1 | i1] [s2 | i2]; simpl; try tauto.
  intros [Hv _]. f_equal. unfold outputs_of. apply map_ext. exact Hv.
Qed.

(** ** The total interpretation that agrees where [pinterp] succeeds *)

Definition tinterp (i : nat) (a b : list (option V)) : list V :=
  match pinterp i a b with Some rs => rs | None => [] end.

Local Notation tfire := (fire tinterp g).
Local Notation tsteps := (steps tinterp g).

Lemma checked_some : forall o r rs, checked o r = Some rs -> r = Some rs.
Proof.
  intros o [r |] rs H; simpl in H; [| discriminate].
  destruct (Nat.eqb (length r) (length (op_outputs o))); congruence.
Qed.

Lemma efire_failed : forall s i j, efire s i = Failed j -> j = i.
Proof.
  intros s i j. unfold efire.
  destruct (nth_error (g_ops g) i) as [o |]; [destruct (eresults s i o) |]; congruence.
Qed.

(** A firing that succeeds is the firing of [Semantics.v] under [tinterp]. *)
Lemma efire_running : forall s i t, efire s i = Running t -> t = tfire s i.
Proof.
  intros s i t. unfold efire, fire. destruct (nth_error (g_ops g) i) as [o |]; [| congruence].
  destruct (eresults s i o) as [rs |] eqn:E; [| discriminate]. intros H. injection H as <-.
  unfold eresults in E. apply checked_some in E. unfold results, tinterp. rewrite E. reflexivity.
Qed.

Lemma efire_step : forall s i t, executable g s i -> efire s i = Running t -> step tinterp g s t.
Proof. intros s i t Hi H. exists i. split; [exact Hi | apply efire_running; exact H]. Qed.

(** Whether an operation fails depends only on the values of the tensors
    it requires. *)
Lemma eresults_agree : forall s s' i o,
  (forall n, In n (required o) -> vals s n = vals s' n) -> eresults s i o = eresults s' i o.
Proof.
  intros s s' i o H. unfold eresults, args, imps. f_equal. f_equal.
  - apply map_ext_in. intros [n |] Hin; simpl; auto. apply H. unfold required.
    apply in_or_app. left. apply in_flat_map. exists (Some n). simpl. auto.
  - apply map_ext_in. intros n Hin. apply H. unfold required. apply in_or_app. right. exact Hin.
Qed.

(** ** From runs with failures to runs of [Semantics.v] *)

Lemma erun_running : forall s e, erun s e -> forall s', e = Running s' -> maximal_run tinterp g s s'.
Proof.
  intros s e H. induction H as [s Hm | s i Hi Hf | s i t e Hi Ht Hrest IH]; intros s' He.
  - injection He as <-. split; [exists 0; constructor | exact Hm].
  - discriminate.
  - destruct (IH s' He) as [[n Hn] Hm]. split; [| exact Hm].
    exists (S n). econstructor; [apply (efire_step s i t Hi Ht) | exact Hn].
Qed.

(** A failing run reaches a state where the operation that fails is
    executable and fails. *)
Lemma erun_failed : forall s e, erun s e -> forall i, e = Failed i ->
  exists n u, tsteps n s u /\ executable g u i /\ efire u i = Failed i.
Proof.
  intros s e H. induction H as [s Hm | s j Hj Hf | s j t e Hj Ht Hrest IH]; intros i He.
  - discriminate.
  - injection He as <-. exists 0, s. repeat split; auto. constructor.
  - destruct (IH i He) as [n [u [Hn Hu]]]. exists (S n), u. split; [| exact Hu].
    econstructor; [apply (efire_step s j t Hj Ht) | exact Hn].
Qed.

(** An operation fired in a successful run fired earlier or succeeded in
    a state the run reached. *)
Lemma erun_fired : forall s e, erun s e -> forall s' i, e = Running s' -> In i (fired s') ->
  In i (fired s) \/ exists n u t, tsteps n s u /\ executable g u i /\ efire u i = Running t.
Proof.
  intros s e H. induction H as [s Hm | s j Hj Hf | s j t e Hj Ht Hrest IH]; intros s' i He Hin.
  - injection He as <-. left. exact Hin.
  - discriminate.
  - destruct (IH s' i He Hin) as [Hti | [n [u [u' [Hn Hu]]]]].
    + pose proof Hj as [o [Ho _]]. rewrite (efire_running s j t Ht) in Hti.
      rewrite (fire_fired tinterp g s j o Ho) in Hti. destruct Hti as [<- | Hsi].
      * right. exists 0, s, t. repeat split; auto. constructor.
      * left. exact Hsi.
    + right. exists (S n), u, u'. split; [| exact Hu].
      econstructor; [apply (efire_step s j t Hj Ht) | exact Hn].
Qed.

(** ** A value, once defined, is the same in every reachable state *)

(** Under GRAPH-C1 and GRAPH-C1-SOURCES, firing never changes a
    defined value: it comes from a source, which no operation writes, or
    from a fired operation, the only writer of that tensor. *)
Lemma step_keeps : forall (interp : nat -> list (option V) -> list (option V) -> list V) (s s' : state) t,
  c1_assign g -> origin_inv g s -> step interp g s s' -> defined s t -> vals s' t = vals s t.
Proof.
  intros interp s s' t [Hsingle Hsrc] Hinv [i [[o [Ho [Hni _]]] ->]] Hd.
  rewrite (fire_vals interp g s i o Ho). apply write_other. intros Hout.
  destruct (Hinv t Hd) as [Hs | [k [ok [Hk [Hok Hkt]]]]].
  - apply (Hsrc i o t Ho Hout). exact Hs.
  - assert (k = i) as -> by (apply (Hsingle k i ok o t); auto). contradiction.
Qed.

Lemma steps_keeps : forall (interp : nat -> list (option V) -> list (option V) -> list V) n (s s' : state) t,
  c1_assign g -> origin_inv g s -> steps interp g n s s' -> defined s t -> vals s' t = vals s t.
Proof.
  intros interp n s s' t Hc1 Hinv H. induction H as [s | n s u s' Hsu Hrest IH]; auto.
  intros Hd. rewrite IH.
  - apply (step_keeps interp s u t); auto.
  - apply (origin_inv_step interp g s u); auto.
  - apply (step_defined interp g s); auto.
Qed.

(** Two states reached from [s0] agree on every tensor both define: both
    runs extend to maximal runs, which end in the same state
    ([order_independence_from]), and neither value changes on the way. *)
Lemma reach_consistent : forall (interp : nat -> list (option V) -> list (option V) -> list V)
  n m (s0 s u : state) t,
  c1_assign g -> origin_inv g s0 -> steps interp g n s0 s -> steps interp g m s0 u ->
  defined s t -> defined u t -> vals s t = vals u t.
Proof.
  intros interp n m s0 s u t Hc1 Hinv Hs Hu Hds Hdu.
  destruct (maximal_run_exists interp g s) as [[k Rs] Ms].
  destruct (maximal_run_exists interp g u) as [[l Ru] Mu].
  assert (E : st_eq (run_fuel interp g (length (g_ops g)) s) (run_fuel interp g (length (g_ops g)) u)).
  { apply (order_independence_from interp g s0); auto.
    - split; [exists (n + k); apply (steps_trans interp g n k s0 s); auto | exact Ms].
    - split; [exists (m + l); apply (steps_trans interp g m l s0 u); auto | exact Mu]. }
  destruct E as [Ev _].
  assert (Is : origin_inv g s) by (apply (origin_inv_steps interp g n s0 s); auto).
  assert (Iu : origin_inv g u) by (apply (origin_inv_steps interp g m s0 u); auto).
  rewrite <- (steps_keeps interp k s _ t Hc1 Is Rs Hds).
  rewrite <- (steps_keeps interp l u _ t Hc1 Iu Ru Hdu).
  apply Ev.
Qed.

(** ** Order independence with failures *)

(** A run that fails and a run that succeeds cannot both start from
    [s0]: the failing operation [i] fires in the successful run too
    (complete the failing run's prefix under [tinterp]: it ends where the
    successful run ends), in a state that gives it the same arguments. *)
Lemma fail_excludes_success : forall s0 i s2,
  c1_assign g -> origin_inv g s0 -> erun s0 (Failed i) -> erun s0 (Running s2) -> False.
Proof.
  intros s0 i s2 Hc1 Hinv H1 H2.
  destruct (erun_failed s0 _ H1 i eq_refl) as [n [u [Hu [Hi Hfail]]]].
  pose proof Hi as [o [Ho [Hni Hreq]]].
  destruct (maximal_run_exists tinterp g (tfire u i)) as [[k Rz] Mz].
  set (z := run_fuel tinterp g (length (g_ops g)) (tfire u i)) in Rz, Mz.
  assert (Hz : maximal_run tinterp g s0 z).
  { split; [| exact Mz]. exists (n + S k). apply (steps_trans tinterp g n (S k) s0 u); auto.
    econstructor; [exists i; split; [exact Hi | reflexivity] | exact Rz]. }
  assert (Ez : st_eq z s2) by (apply (order_independence_from tinterp g s0); auto;
                               apply (erun_running s0 _ H2 s2 eq_refl)).
  assert (Hin : In i (fired s2)).
  { apply (proj2 Ez). apply (steps_fired tinterp g k (tfire u i)); auto.
    rewrite (fire_fired tinterp g u i o Ho). left. reflexivity. }
  destruct (erun_fired s0 _ H2 s2 i eq_refl Hin) as [H0 | [m [w [t [Hw [Hwi Hok]]]]]].
  - apply Hni. apply (steps_fired tinterp g n s0); auto.
  - pose proof Hwi as [o' [Ho' [_ Hreq']]]. rewrite Ho in Ho'. injection Ho' as <-.
    assert (E : eresults u i o = eresults w i o).
    { apply eresults_agree. intros t' Ht'.
      apply (reach_consistent tinterp n m s0); auto. }
    unfold efire in Hfail, Hok. rewrite Ho in Hfail, Hok. rewrite E in Hfail.
    destruct (eresults w i o); discriminate.
Qed.

Lemma error_order_independence_from : forall s0 e1 e2,
  c1_assign g -> origin_inv g s0 -> erun s0 e1 -> erun s0 e2 -> outcome_eq e1 e2.
Proof.
  intros s0 [s1 | i1] [s2 | i2] Hc1 Hinv H1 H2; simpl.
  - apply (order_independence_from tinterp g s0); auto.
    + apply (erun_running s0 _ H1 s1 eq_refl).
    + apply (erun_running s0 _ H2 s2 eq_refl).
  - apply (fail_excludes_success s0 i2 s1); auto.
  - apply (fail_excludes_success s0 i1 s2); auto.
  - exact I.
Qed.

(** Order independence with failures: under GRAPH-C1 and
    GRAPH-C1-SOURCES, for any partial operators, two maximal
    runs from the initial state both fail, or both succeed and end in the
    same state (same values, same fired operations). *)
Theorem error_order_independence : forall inp init outer e1 e2,
  c1_assign g ->
  erun (initial_state g inp init outer) e1 ->
  erun (initial_state g inp init outer) e2 ->
  outcome_eq e1 e2.
Proof.
  intros inp init outer e1 e2 Hc1 H1 H2.
  apply (error_order_independence_from (initial_state g inp init outer)); auto.
  apply origin_inv_initial.
Qed.

(** ** Determinism with failures *)

Lemma efire_st_eq : forall s s' i, st_eq s s' -> outcome_eq (efire s i) (efire s' i).
Proof.
  intros s s' i [Hv Hf]. unfold efire. destruct (nth_error (g_ops g) i) as [o |]; simpl.
  - rewrite (eresults_agree s s' i o) by (intros; apply Hv).
    destruct (eresults s' i o) as [rs |]; simpl; [| exact I]. split; simpl.
    + intros t. apply write_pointwise. apply Hv.
    + intros k. rewrite Hf. tauto.
  - split; assumption.
Qed.

(** A run with failures can be replayed from an equivalent state, with the
    same outcome. *)
Lemma erun_st_eq : forall s e, erun s e -> forall s', st_eq s s' ->
  exists e', erun s' e' /\ outcome_eq e e'.
Proof.
  intros s e H. induction H as [s Hm | s i Hi Hf | s i t e Hi Ht Hrest IH]; intros s' Heq.
  - exists (Running s'). split; [| exact Heq]. constructor. apply (maximal_st_eq g s); auto.
  - exists (Failed i). split; [| exact I]. pose proof (efire_st_eq s s' i Heq) as E.
    rewrite Hf in E. destruct (efire s' i) as [t' | j] eqn:Ef; [contradiction |].
    rewrite (efire_failed s' i j Ef) in Ef. constructor; [| exact Ef].
    apply (executable_st_eq g s); auto.
  - pose proof (efire_st_eq s s' i Heq) as E. rewrite Ht in E.
    destruct (efire s' i) as [t' | j] eqn:Ef; [| contradiction].
    destruct (IH t' E) as [e' [He' Ee']]. exists e'. split; [| exact Ee'].
    apply (erun_fire s' i t'); auto. apply (executable_st_eq g s); auto.
Qed.

(** Determinism with failures: under GRAPH-C1 and GRAPH-C1-SOURCES, whether a run fails, and the values of the graph outputs when it
    does not, depend only on the values of the graph inputs, the
    initializers and the captured outer tensors. *)
Theorem error_determinism : forall inp1 inp2 init1 init2 outer1 outer2 e1 e2,
  c1_assign g ->
  (forall t, In t (g_inputs g) -> inp1 t = inp2 t) ->
  (forall t, In t (g_inits g) -> init1 t = init2 t) ->
  (forall t, In t (g_captures g) -> outer1 t = outer2 t) ->
  erun (initial_state g inp1 init1 outer1) e1 ->
  erun (initial_state g inp2 init2 outer2) e2 ->
  outcome e1 = outcome e2.
Proof.
  intros inp1 inp2 init1 init2 outer1 outer2 e1 e2 Hc1 Hi Hn Ho H1 H2.
  pose proof (initial_state_agree tinterp g inp1 inp2 init1 init2 outer1 outer2 Hi Hn Ho) as E0.
  destruct (erun_st_eq _ e1 H1 _ E0) as [e1' [H1' E1]].
  apply outcome_eq_outcome. apply (outcome_eq_trans e1 e1'); auto.
  apply (error_order_independence inp2 init2 outer2); auto.
Qed.

(** ** A runner with failures *)

(** Fire the first executable operation until none is left or one fails.
    Mirrors [run] with the [FileOrder] scheduler, where the exception of a
    failing kernel ends the run. *)
Fixpoint erun_fuel (fuel : nat) (s : state) : estate :=
  match fuel with
  | 0 => Running s
  | S f =>
      match next g s with
      | Some i => match efire s i with Running t => erun_fuel f t | Failed j => Failed j end
      | None => Running s
      end
  end.

Lemma erun_fuel_erun : forall fuel s, unfired g s <= fuel -> erun s (erun_fuel fuel s).
Proof.
  induction fuel as [| f IH]; intros s H; simpl.
  - constructor. apply (run_fuel_maximal tinterp g 0 s H).
  - destruct (next g s) as [i |] eqn:E; [| constructor; apply next_none; exact E].
    pose proof (next_some g s i E) as Hi.
    destruct (efire s i) as [t | j] eqn:Ef.
    + apply (erun_fire s i t); auto. apply IH.
      pose proof (step_unfired tinterp g s t (efire_step s i t Hi Ef)). lia.
    + rewrite (efire_failed s i j Ef) in Ef |- *. constructor; auto.
Qed.

(** The file-order runner with failures ends a maximal run, so (by
    [error_order_independence]) it has the outcome of every maximal run:
    every run fails exactly when it fails. *)
Theorem error_runner_correct : forall inp init outer e,
  c1_assign g ->
  erun (initial_state g inp init outer) e ->
  outcome_eq (erun_fuel (length (g_ops g)) (initial_state g inp init outer)) e.
Proof.
  intros inp init outer e Hc1 He.
  apply (error_order_independence inp init outer); auto.
  apply erun_fuel_erun. apply unfired_le.
Qed.

End Errors.

Print Assumptions error_order_independence.
Print Assumptions error_determinism.
Print Assumptions error_runner_correct.
