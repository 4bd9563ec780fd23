(** * Calls that omit an optional input: running the call as a nested graph
    still gives the result of inlining it (spec/graph.rst, section 3.6,
    GRAPH-FUNCTIONS).

    An ONNX call may leave an optional input out (an empty name, or fewer
    actual inputs than the function has formal ones). ONNX gives the body
    that formal input with no value: onnx's reference evaluator binds the
    formal name to [None], so every body operation that reads it receives
    "no value" in that argument position, as it would for an omitted entry.
    sonnx's loader inlines such a call by renaming the formal input to the
    empty name, so every body entry that reads it becomes an omitted entry.

    The two readings defined here:
    - nested ([nested_in]): the call runs the body with the omitted formal
      inputs absent and every entry that reads one of them omitted
      ([strip_body]); [strip_args] shows that this changes no argument an
      operation receives, only that it does not wait for a value that never
      comes;
    - inlined ([inline_graph_in]): the caller with the body's operations in
      place of the call, renamed by [ren], where an entry reading an omitted
      formal input becomes an omitted entry ([ren_entry]), as the loader
      does.

    [inline_matches_nested_omitted_input] proves that they agree, for calls
    that may omit inputs and outputs alike. The proof reduces the call to
    one of the stripped body that binds every input it keeps, and applies
    [InlineOmitted.inline_matches_nested_omitted]. The two concrete calls of
    [InlineOmittedInputExamples.v] show the premises can hold and that the
    stripping is needed. *)

From Coq Require Import List Arith Lia Bool.
From SONNX Require Import Semantics Termination OrderIndependence C3 InlineGraph InlineSim Inline InlineOmitted.
Import ListNotations.

Section OmittedInput.

Context {V : Type}.

(** The parameters of [InlineGraph.v]'s section, explained there, and the
    call's output mapping of [InlineOmitted.v]. *)
Variable it : nat -> list (option V) -> list (option V) -> list V.
Variable ib : nat -> list (option V) -> list (option V) -> list V.
Variable undef : V.
Variable g : graph.
Variable c : nat.
Variable fb : graph.
Variable ren : nat -> nat.
Variable couts : list (option nat).
(** [om x]: the call omits the formal input [x] (read only for [x] a
    formal input). *)
Variable om : nat -> bool.

Local Notation fin := (g_inputs fb).
Local Notation fout := (g_outputs fb).
Local Notation g_tensor := (InlineGraph.g_tensor g).
Local Notation nothing := (@InlineGraph.nothing V).

(** ** The call and the two readings *)

(** A formal input the call omits. *)
Definition absent (x : nat) : bool := mem x fin && om x.

(** The formal inputs the call binds. *)
Definition kept : list nat := filter (fun x => negb (absent x)) fin.

(** The call as written: entry [k] is omitted when the call omits formal
    input [k], and is [ren (fin k)] otherwise; output [k] is [couts k]. A
    call with fewer actual inputs than formal ones is this call with the
    missing trailing entries omitted (the loader reads it so). *)
Definition call_in : operation :=
  mkOp (map (fun x => if absent x then None else Some (ren x)) fin) [] couts.

(** The body with every entry that reads an omitted formal input omitted,
    and the omitted formal inputs no longer inputs. *)
Definition strip_entry (e : option nat) : option nat :=
  match e with Some x => if absent x then None else Some x | None => None end.

Definition strip_op (o : operation) : operation :=
  mkOp (map strip_entry (op_inputs o)) (op_implicit o) (op_outputs o).

Definition strip_body : graph :=
  mkGraph kept (g_inits fb) (g_captures fb) (map strip_op (g_ops fb)) fout.

(** The nested reading: the call binds the body's formal inputs to its
    argument values by position ([bind_in]; an omitted entry binds
    nothing), runs the stripped body with the [FileOrder] runner and
    returns its output values. *)
Definition body_run_in (a : list (option V)) : state :=
  run_fuel ib strip_body (length (g_ops strip_body)) (initial_state strip_body (bind_in fin a) nothing nothing).

Definition call_fn_in (a : list (option V)) : list V :=
  fill_out undef (outputs_of strip_body (body_run_in a)).

Definition nested_in (i : nat) (a b : list (option V)) : list V :=
  if Nat.eqb i c then call_fn_in a else it i a b.

(** The inlined reading: a body entry reading an omitted formal input is
    an omitted entry; every other name is renamed by [ren]. *)
Definition ren_entry (e : option nat) : option nat :=
  match e with Some x => if absent x then None else Some (ren x) | None => None end.

Definition ren_op_in (o : operation) : operation :=
  mkOp (map ren_entry (op_inputs o)) (map ren (op_implicit o)) (map (option_map ren) (op_outputs o)).

Definition inline_graph_in : graph :=
  mkGraph (g_inputs g) (g_inits g) (g_captures g)
    (firstn c (g_ops g) ++ map ren_op_in (g_ops fb) ++ skipn (S c) (g_ops g)) (g_outputs g).

(** ** Why stripping is the ONNX reading *)

(** In a state where no omitted formal input has a value (as in every
    state of the nested reading's body run, [strip_run_unbound]), a stripped
    operation receives exactly the arguments the original one would: an
    omitted formal input reads as "no value" either way. Stripping only
    lets the operation fire without waiting for it. *)
Lemma strip_args : forall (s : @state V) o, (forall x, absent x = true -> vals s x = None) ->
  args s (strip_op o) = args s o /\ imps s (strip_op o) = imps s o.
Proof.
  intros s o H. unfold args, imps, strip_op. simpl. split; [| reflexivity].
  rewrite map_map. apply map_ext. intros [x |]; simpl; auto.
  destruct (absent x) eqn:E; simpl; auto. symmetry. apply H. exact E.
Qed.

Lemma call_args : forall (s : @state V),
  args s call_in = map (fun x => if absent x then None else vals s (ren x)) fin.
Proof.
  intros s. unfold args, call_in. simpl. rewrite map_map. apply map_ext.
  intros x. destruct (absent x); reflexivity.
Qed.

(** The call binds no value to an omitted formal input. *)
Lemma absent_unbound : forall (s : @state V) x, absent x = true -> bind_in fin (args s call_in) x = None.
Proof.
  intros s x H. rewrite call_args. rewrite (InlineSim.bind_in_map (fun y => if absent y then None else vals s (ren y))).
  - rewrite H. reflexivity.
  - unfold absent in H. apply andb_true_iff in H. apply mem_In. apply H.
Qed.

(** ** The reduction to a call that binds every input *)

Definition call_kept : operation := InlineOmitted.call_omit strip_body ren couts.

(** The caller with the call replaced by a call of the stripped body. *)
Definition gk : graph :=
  mkGraph (g_inputs g) (g_inits g) (g_captures g)
    (firstn c (g_ops g) ++ call_kept :: skipn (S c) (g_ops g)) (g_outputs g).

Local Notation nested_k := (InlineGraph.nested_interp it ib undef c strip_body).

Lemma kept_in : forall x, In x kept -> In x fin /\ absent x = false.
Proof.
  intros x Hx. unfold kept in Hx. apply filter_In in Hx. destruct Hx as [Hx E].
  split; [exact Hx |]. destruct (absent x); [discriminate | reflexivity].
Qed.

(** No state of a run of the stripped body gives an omitted formal input a
    value (no body operation writes a formal input, by GRAPH-C1 for the
    body), so [strip_args] applies at every step of the nested reading. *)
Lemma strip_run_unbound : c1_assign fb -> forall (inp : nat -> option V) n s,
  steps ib strip_body n (initial_state strip_body inp nothing nothing) s ->
  forall x, absent x = true -> vals s x = None.
Proof.
  intros [_ Hsrc] inp n s R.
  assert (H0 : forall x, absent x = true -> vals (initial_state strip_body inp nothing nothing) x = None).
  { intros x Hx. simpl. unfold initial_vals.
    replace (mem x (g_inputs strip_body)) with false
      by (symmetry; apply mem_false; intros Hk; apply kept_in in Hk; destruct Hk as [_ Ha]; congruence).
    destruct (mem x (g_inits strip_body)), (mem x (g_captures strip_body)); reflexivity. }
  revert H0. remember (initial_state strip_body inp nothing nothing) as s0 eqn:Es0. clear Es0.
  induction R as [s0 | n s0 s1 s [i [_ ->]] _ IH]; intros H0; [exact H0 |].
  apply IH. intros y Hy. unfold fire.
  destruct (nth_error (g_ops strip_body) i) as [o |] eqn:E; [| apply H0; exact Hy]. simpl.
  rewrite write_other; [apply H0; exact Hy |]. intros Hin. simpl in E. rewrite nth_error_map in E.
  destruct (nth_error (g_ops fb) i) as [o0 |] eqn:E0; [| discriminate]. injection E as <-.
  apply (Hsrc i o0 y E0 Hin). left. unfold absent in Hy. apply andb_true_iff in Hy. apply mem_In. apply Hy.
Qed.

Lemma required_gen : forall l,
  flat_map present (map (fun x => if absent x then None else Some (ren x)) l) =
  flat_map present (map (fun x => Some (ren x)) (filter (fun x => negb (absent x)) l)).
Proof. induction l as [| x l IH]; simpl; auto. destruct (absent x); simpl; [exact IH | f_equal; exact IH]. Qed.

Lemma required_call : required call_kept = required call_in.
Proof. unfold required. simpl. rewrite required_gen. reflexivity. Qed.

Lemma couts_weaken : forall (P Q : nat -> Prop) cs ys, (forall t, P t -> Q t) ->
  Forall2 (fun e y => e = Some (ren y) \/ (e = None /\ P (ren y))) cs ys ->
  Forall2 (fun e y => e = Some (ren y) \/ (e = None /\ Q (ren y))) cs ys.
Proof.
  intros P Q cs ys HPQ H. induction H as [| e y cs ys He _ IH]; constructor; [| exact IH].
  destruct He as [E | [E HP]]; [left; exact E | right; split; [exact E | apply HPQ; exact HP]].
Qed.

Section Proofs.

Hypothesis H_call : nth_error (g_ops g) c = Some call_in.
Hypothesis H_c1b : c1_assign fb.

Lemma split_g : g_ops g = firstn c (g_ops g) ++ call_in :: skipn (S c) (g_ops g) /\
  length (firstn c (g_ops g)) = c.
Proof. apply split_at. exact H_call. Qed.

Lemma nth_gk : forall i, nth_error (g_ops gk) i = if Nat.eqb i c then Some call_kept else nth_error (g_ops g) i.
Proof.
  intros i. destruct split_g as [E L]. simpl. destruct (Nat.eqb_spec i c) as [-> | Hne].
  - rewrite <- L at 2. apply nth_error_middle.
  - transitivity (nth_error (firstn c (g_ops g) ++ call_in :: skipn (S c) (g_ops g)) i);
      [apply nth_error_replace; lia | rewrite <- E; reflexivity].
Qed.

(** The call and its stand-in read the same tensors and write the same. *)
Lemma same_shape : forall i o, nth_error (g_ops g) i = Some o -> exists o',
  nth_error (g_ops gk) i = Some o' /\ required o' = required o /\ op_outputs o' = op_outputs o.
Proof.
  intros i o Ho. rewrite nth_gk. destruct (Nat.eqb_spec i c) as [-> | _].
  - rewrite H_call in Ho. injection Ho as <-. exists call_kept. split; [reflexivity |].
    split; [exact required_call | reflexivity].
  - exists o. auto.
Qed.

Lemma same_shape_inv : forall i o', nth_error (g_ops gk) i = Some o' -> exists o,
  nth_error (g_ops g) i = Some o /\ required o' = required o /\ op_outputs o' = op_outputs o.
Proof.
  intros i o' Ho'. rewrite nth_gk in Ho'. destruct (Nat.eqb_spec i c) as [-> | _].
  - injection Ho' as <-. exists call_in. split; [exact H_call |]. split; [exact required_call | reflexivity].
  - exists o'. auto.
Qed.

Lemma executable_gk : forall (s : @state V) i, executable g s i <-> executable gk s i.
Proof.
  intros s i. split.
  - intros [o [Ho [Hn Hr]]]. destruct (same_shape i o Ho) as [o' [Ho' [Er _]]].
    exists o'. split; [exact Ho' |]. split; [exact Hn |]. rewrite Er. exact Hr.
  - intros [o' [Ho' [Hn Hr]]]. destruct (same_shape_inv i o' Ho') as [o [Ho [Er _]]].
    exists o. split; [exact Ho |]. split; [exact Hn |]. rewrite <- Er. exact Hr.
Qed.

Lemma strip_c1 : c1_assign strip_body.
Proof.
  destruct H_c1b as [Hs Hsrc]. split.
  - intros i j oi oj t Hi Hj Ht Ht'. simpl in Hi, Hj. rewrite nth_error_map in Hi, Hj.
    destruct (nth_error (g_ops fb) i) as [oi0 |] eqn:Ei; [| discriminate].
    destruct (nth_error (g_ops fb) j) as [oj0 |] eqn:Ej; [| discriminate].
    injection Hi as <-. injection Hj as <-. apply (Hs i j oi0 oj0 t); auto.
  - intros i o t Hi Ht Hsr. simpl in Hi. rewrite nth_error_map in Hi.
    destruct (nth_error (g_ops fb) i) as [o0 |] eqn:Ei; [| discriminate]. injection Hi as <-.
    apply (Hsrc i o0 t Ei Ht). destruct Hsr as [Hk | Hr]; [left; apply kept_in; exact Hk | right; exact Hr].
Qed.

(** The nested call and its stand-in give the same results: both run the
    stripped body from the values of the kept inputs ([determinism]). *)
Lemma call_results : forall (s : @state V),
  call_fn_in (args s call_in) = InlineGraph.call_fn ib undef strip_body (args s call_kept).
Proof.
  intros s. unfold call_fn_in, InlineGraph.call_fn, body_run_in, InlineGraph.body_run. f_equal.
  apply (determinism ib strip_body (bind_in fin (args s call_in)) (bind_in (g_inputs strip_body) (args s call_kept))
           nothing nothing nothing nothing _ _ strip_c1);
    [| intros; reflexivity | intros; reflexivity | apply maximal_run_exists | apply maximal_run_exists].
  intros t Ht. destruct (kept_in t Ht) as [Hin Ha].
  rewrite call_args, (InlineSim.bind_in_map (fun y => if absent y then None else vals s (ren y))) by exact Hin.
  rewrite Ha. unfold args, call_kept, InlineOmitted.call_omit. simpl. rewrite map_map. simpl.
  rewrite (InlineSim.bind_in_map (fun y => vals s (ren y))) by exact Ht. reflexivity.
Qed.

Lemma fire_gk : forall s i, fire nested_in g s i = fire nested_k gk s i.
Proof.
  intros s i. unfold fire. rewrite nth_gk. destruct (Nat.eqb_spec i c) as [-> | Hne].
  - rewrite H_call. unfold results, nested_in, InlineGraph.nested_interp. rewrite Nat.eqb_refl.
    rewrite call_results. reflexivity.
  - destruct (nth_error (g_ops g) i) as [o |]; [| reflexivity].
    unfold results, nested_in, InlineGraph.nested_interp.
    destruct (Nat.eqb_spec i c); [contradiction | reflexivity].
Qed.

Lemma steps_gk : forall n s s', steps nested_in g n s s' -> steps nested_k gk n s s'.
Proof.
  intros n s s' R. induction R as [s | n s t s' [i [Hi ->]] _ IH]; [constructor |].
  econstructor; [| exact IH]. exists i. split; [apply executable_gk; exact Hi | apply fire_gk].
Qed.

Lemma g_tensor_gk : forall t, InlineGraph.g_tensor gk t <-> g_tensor t.
Proof.
  intros t. unfold InlineGraph.g_tensor. split.
  - intros [Hs | [Ho | [i [o' [Ho' Ht]]]]]; [left; exact Hs | right; left; exact Ho |].
    destruct (same_shape_inv i o' Ho') as [o [Ho [Er Eo]]]. right. right. exists i, o.
    rewrite <- Er, <- Eo. auto.
  - intros [Hs | [Ho | [i [o [Ho Ht]]]]]; [left; exact Hs | right; left; exact Ho |].
    destruct (same_shape i o Ho) as [o' [Ho' [Er Eo]]]. right. right. exists i, o'.
    rewrite Er, Eo. auto.
Qed.

Lemma gk_c1 : c1_assign g -> c1_assign gk.
Proof.
  intros [Hs Hsrc]. split.
  - intros i j oi oj t Hi Hj Ht Ht'.
    destruct (same_shape_inv i oi Hi) as [oi0 [Hi0 [_ Ei]]]. destruct (same_shape_inv j oj Hj) as [oj0 [Hj0 [_ Ej]]].
    apply (Hs i j oi0 oj0 t); [exact Hi0 | exact Hj0 | rewrite <- Ei | rewrite <- Ej]; assumption.
  - intros i o t Hi Ht Hsr. destruct (same_shape_inv i o Hi) as [o0 [Ho0 [_ Eo]]].
    apply (Hsrc i o0 t Ho0); [rewrite <- Eo; exact Ht | exact Hsr].
Qed.

Lemma ren_strip : forall o, InlineGraph.ren_op ren (strip_op o) = ren_op_in o.
Proof.
  intros o. unfold InlineGraph.ren_op, strip_op, ren_op_in. simpl. f_equal.
  rewrite map_map. apply map_ext. intros [x |]; simpl; auto. destruct (absent x); reflexivity.
Qed.

Lemma inline_gk : InlineGraph.inline_graph gk c strip_body ren = inline_graph_in.
Proof.
  destruct split_g as [_ L]. unfold InlineGraph.inline_graph, InlineGraph.inline_ops, inline_graph_in.
  change (g_ops gk) with (firstn c (g_ops g) ++ call_kept :: skipn (S c) (g_ops g)).
  change (g_ops strip_body) with (map strip_op (g_ops fb)).
  destruct (firstn_skipn_middle (firstn c (g_ops g)) (skipn (S c) (g_ops g)) call_kept) as [E1 E2].
  rewrite L in E1, E2. rewrite E1, E2, map_map. f_equal. f_equal. f_equal. apply map_ext. exact ren_strip.
Qed.

Lemma inline_interp_strip : InlineGraph.inline_interp it ib c strip_body = InlineGraph.inline_interp it ib c fb.
Proof. unfold InlineGraph.inline_interp. simpl. rewrite map_length. reflexivity. Qed.

End Proofs.

(** Running a call that omits inputs (and possibly outputs) as a nested
    graph gives the result of inlining it.

    The call [call_in] at position [c] of the caller [g] omits the formal
    inputs [om] marks and binds the others ([kept]) to [ren] of their
    names. Nested reading [nested_in]: run the body with the omitted
    formal inputs absent and the entries that read them omitted (ONNX's
    reading, [strip_args]). Inlined reading [inline_graph_in]: the loader's
    inlining, where those entries become omitted entries.

    Premises: those of [InlineOmitted.inline_matches_nested_omitted], with
    the kept inputs where that theorem has the formal inputs:
    - [ren] is injective on every name but the kept inputs, and gives every
      name that is neither a kept input nor an output a name the caller
      does not mention. For an omitted formal input [x] this only asks
      [ren x] to be a fresh name: the inlined graph never reads [ren x]
      through an entry (only an implicit input could name it, and then that
      operation waits for a value that never comes in both readings);
    - GRAPH-C3 for the stripped body whenever its kept inputs have values:
      the body computes every output without the omitted inputs, which is
      what makes an omitted input optional. A body that needs the input
      never computes some output: inlining leaves the caller's tensor
      undefined, while the nested call writes the placeholder [undef] into
      it, so the theorem assumes it (as [Inline.inline_matches_nested] does);
    - the others as in [Inline.inline_matches_nested]: the body has no
      initializer, capture or output that is also an input, GRAPH-C1 with
      GRAPH-C1-SOURCES for the caller and the body, [arity_ok], and the
      call fires in the caller's run.

    Conclusion: every maximal run of the caller under the nested reading in
    which the call fires and every maximal run of the inlined graph give
    the same value to every tensor the caller mentions, the graph outputs
    among them. *)
Theorem inline_matches_nested_omitted_input : forall (inp init outer : nat -> option V) s1 s2,
  nth_error (g_ops g) c = Some call_in ->
  Forall2 (fun e y => e = Some (ren y) \/ (e = None /\ ~ g_tensor (ren y))) couts fout ->
  g_inits fb = [] -> g_captures fb = [] ->
  (forall u, In u fin -> ~ In u fout) ->
  (forall u x, ~ In x kept -> ren u = ren x -> u = x) ->
  (forall u, ~ In u kept -> ~ In u fout -> ~ g_tensor (ren u)) ->
  c1_assign g -> c1_assign fb ->
  arity_ok ib fb ->
  (forall inp, (forall x, In x kept -> inp x <> None) ->
     c3_fixpoint strip_body (initial_state strip_body inp nothing nothing)) ->
  maximal_run nested_in g (initial_state g inp init outer) s1 -> In c (fired s1) ->
  maximal_run (InlineGraph.inline_interp it ib c fb) inline_graph_in (initial_state inline_graph_in inp init outer) s2 ->
  (forall t, g_tensor t -> vals s2 t = vals s1 t) /\ outputs_of inline_graph_in s2 = outputs_of g s1.
Proof.
  intros inp init outer s1 s2 Hcall Hcouts Hni Hnc Hio Hinj Hfresh Hc1g Hc1b Har Hc3 [[n R1] M1] Hc R2.
  rewrite <- (inline_gk Hcall), <- (inline_interp_strip) in R2.
  assert (Hgt : forall t, ~ g_tensor t -> ~ InlineGraph.g_tensor gk t)
    by (intros t H Ht; apply H; apply (g_tensor_gk Hcall); exact Ht).
  assert (P1 : nth_error (g_ops gk) c = Some call_kept) by (rewrite (nth_gk Hcall c), Nat.eqb_refl; reflexivity).
  assert (P2 : Forall2 (fun e y => e = Some (ren y) \/ (e = None /\ ~ InlineGraph.g_tensor gk (ren y)))
                 couts (g_outputs strip_body)).
  { exact (couts_weaken (fun t => ~ g_tensor t) (fun t => ~ InlineGraph.g_tensor gk t) couts fout Hgt Hcouts). }
  assert (P5 : forall u, In u (g_inputs strip_body) -> ~ In u (g_outputs strip_body))
    by (intros u Hu; apply Hio; apply kept_in; exact Hu).
  assert (P7 : forall u, internal strip_body u -> ~ InlineGraph.g_tensor gk (ren u))
    by (intros u [Hu1 Hu2]; apply Hgt; apply Hfresh; assumption).
  assert (P10 : arity_ok ib strip_body).
  { intros i o a b Ho. simpl in Ho. rewrite nth_error_map in Ho.
    destruct (nth_error (g_ops fb) i) as [o0 |] eqn:E; [| discriminate]. injection Ho as <-.
    apply (Har i o0 a b E). }
  assert (R1' : maximal_run nested_k gk (initial_state gk inp init outer) s1).
  { split; [exists n; apply (steps_gk Hcall Hc1b); exact R1 |].
    intros i Hi. apply (M1 i). apply (executable_gk Hcall). exact Hi. }
  destruct (inline_matches_nested_omitted it ib undef gk c strip_body ren couts inp init outer s1 s2
              P1 P2 Hni Hnc P5 Hinj P7 (gk_c1 Hcall Hc1g) (strip_c1 Hc1b) P10 Hc3 R1' Hc R2) as [Hv Hout].
  split; [intros t Ht; apply Hv; apply (g_tensor_gk Hcall); exact Ht |].
  rewrite <- (inline_gk Hcall). exact Hout.
Qed.

End OmittedInput.

Print Assumptions inline_matches_nested_omitted_input.
