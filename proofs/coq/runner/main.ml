(* The driver of the runner extracted from proofs/coq/Extract.v (spec/graph.rst section 3).

   It reads graphs from stdin, one block of lines each, and prints for each the
   state after every firing of the file-order maximal run, the fired operations
   in order, the final values and the graph outputs.  Input lines:
     inputs ID...    inits ID...    captures ID...    outputs ID...
     op CODE PARAM NOUTS | IN... | IMPLICIT... | OUT...   ('-' marks an omitted entry)
     inp ID V ID V...    init ID V...    outer ID V...    (values)
     tensors N           (values are printed for the ids 0 .. N-1)
     run                 (ends the block)
     nested              (a block of graphs with nested graphs follows: see nested_driver.ml)
   Output for each block, from the file-order run with failures (erun_graph):
     step I T=V...       (the state after each firing before the failure: etrace_graph)
     failed I            (then operation I failed; nothing else is printed but done)
   or
     step I T=V...       (the state after firing operation I, one line a firing)
     fired I...          (the firing order)
     vals T=V...         (the final values)
     outs V...           ('-' for an undefined output)
     done
   A malformed line, a negative number or a value of 2^40 or more stops the
   driver with a message on stderr and exit code 2: the extraction maps nat to
   int, which is exact only for non-negative numbers far below max_int. *)

open Sonnx_runner

(* The line-reading helpers are nested_driver.ml's (compiled first), so both drivers refuse the same input. *)
let fail = Nested_driver.fail
let num = Nested_driver.num
let entry = Nested_driver.entry
let pairs = Nested_driver.pairs

let words = Nested_driver.words

let parse_op rest =
  match List.map words (String.split_on_char '|' rest) with
  | [ [ c; p; n ]; ins; imps; outs ] ->
    ( { code = num c; param = num p; nouts = num n },
      { op_inputs = List.map entry ins; op_implicit = List.map num imps;
        op_outputs = List.map entry outs } )
  | _ -> fail ("malformed op line: " ^ rest)

let show_vals = Nested_driver.show_vals

type block = {
  mutable inputs : int list; mutable inits : int list; mutable captures : int list;
  mutable outputs : int list; mutable ops : (opcode * operation) list;
  mutable inp : (int * int) list; mutable init : (int * int) list;
  mutable outer : (int * int) list; mutable tensors : int }

let empty () = { inputs = []; inits = []; captures = []; outputs = []; ops = [];
                 inp = []; init = []; outer = []; tensors = 0 }

(* A failing run: the model's own steps (etrace_graph, whose end error_trace_correct proves to be
   erun_graph's), then the failed operation. *)
let print_failed_run codes g b i =
  match etrace_graph codes g b.inp b.init b.outer with
  | trace, Failed j when j = i ->
    List.iter (fun (k, s) -> print_string (Printf.sprintf "step %d%s\n" k (show_vals b.tensors s.vals))) trace;
    print_string (Printf.sprintf "failed %d\ndone\n" i)
  | _ -> fail "the traced run does not fail where erun_graph fails"

let run_block b =
  let ops = List.rev b.ops in
  let codes = List.map fst ops in
  let g = { g_inputs = b.inputs; g_inits = b.inits; g_captures = b.captures;
            g_ops = List.map snd ops; g_outputs = b.outputs } in
  match erun_graph codes g b.inp b.init b.outer with
  | Failed i -> print_failed_run codes g b i
  | Running final ->
  let order = List.rev final.fired in
  let s = ref (start g b.inp b.init b.outer) in
  List.iter (fun i ->
      if not (is_executable g !s i) then fail "the runner fired a non-executable operation";
      s := fire_op codes g !s i;
      print_string (Printf.sprintf "step %d%s\n" i (show_vals b.tensors !s.vals))) order;
  print_string ("fired" ^ String.concat "" (List.map (Printf.sprintf " %d") order) ^ "\n");
  print_string ("vals" ^ show_vals b.tensors final.vals ^ "\n");
  let out = function Some v -> Printf.sprintf " %d" v | None -> " -" in
  print_string ("outs" ^ String.concat "" (List.map out (graph_outputs g final)) ^ "\n");
  print_string "done\n"

let () =
  let b = ref (empty ()) in
  try
    while true do
      let line = input_line stdin in
      match words line with
      | [] -> ()
      | "inputs" :: ids -> !b.inputs <- List.map num ids
      | "inits" :: ids -> !b.inits <- List.map num ids
      | "captures" :: ids -> !b.captures <- List.map num ids
      | "outputs" :: ids -> !b.outputs <- List.map num ids
      | "op" :: _ -> !b.ops <- parse_op (String.sub line 3 (String.length line - 3)) :: !b.ops
      | "inp" :: vs -> !b.inp <- pairs vs
      | "init" :: vs -> !b.init <- pairs vs
      | "outer" :: vs -> !b.outer <- pairs vs
      | [ "tensors"; n ] -> !b.tensors <- num n
      | [ "run" ] -> run_block !b; flush stdout; b := empty ()
      | [ "nested" ] -> Nested_driver.run_block (); flush stdout; b := empty ()
      | w :: _ -> fail ("unknown line: " ^ w)
    done
  with End_of_file -> flush stdout
